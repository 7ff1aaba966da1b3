import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { getPriority } from 'node:os';
import { join } from 'node:path';
import { parentOf } from '../../../bench/engine/process-tree';
import { MediaProcess, MediaProcessError, runToCompletion } from '../../../src/engine/media/process';
import { nodeEntryArgs } from '../../../src/engine/runner/typescript-loader';
import { FrameReader } from '../../../src/engine/pipeline/frame-reader';
import { decodingFailure } from '../../../src/engine/pipeline/stream-mattes';
import { ffmpegPath } from '../../../src/engine/media/binaries';
import { MEDIA } from '../support/media';

function readlinkSafe(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '';
  }
}

const SH = '/bin/sh';

function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  for (const started = Date.now(); Date.now() - started < timeoutMs; ) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return condition();
}

function read(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return new Promise((resolve) => stream.on('end', () => resolve(Buffer.concat(chunks))));
}

describe('a decoder stopped from outside (an OOM kill) is not the video\'s fault', () => {
  it('killed by a signal this side did not send, the run fails output_failed (it was input_invalid: a good video refused for good); one that exits with an error still blames the input; one killed here is not interrupted', async () => {
    const sleeper = new MediaProcess(SH, ['-c', 'exec sleep 30']);
    await until(() => sleeper.pid !== undefined, 5000);
    process.kill(sleeper.pid!, 'SIGKILL');
    const killed = await sleeper.exited.then(() => undefined, (error: Error) => error);
    expect(killed).toBeInstanceOf(MediaProcessError);
    expect((killed as MediaProcessError).interrupted).toBe(true);
    expect(decodingFailure(killed!)).toMatchObject({ code: 'output_failed', message: expect.stringMatching(/^the decoder was stopped, not by the video: sh failed \(SIGKILL\)/) });

    const refused = await new MediaProcess(SH, ['-c', 'echo "Invalid data found" >&2; exit 1']).exited.then(() => undefined, (error: Error) => error);
    expect((refused as MediaProcessError).interrupted).toBe(false);
    expect(decodingFailure(refused!)).toMatchObject({ code: 'input_invalid' });

    const stoppedHere = new MediaProcess(SH, ['-c', 'exec sleep 30']);
    await until(() => stoppedHere.pid !== undefined, 5000);
    stoppedHere.kill();
    expect(((await stoppedHere.exited.then(() => undefined, (error: Error) => error)) as MediaProcessError).interrupted).toBe(false);
  });
});

describe('MediaProcess', () => {
  it('runs its child just below the engine: niceness +2 (at most 19), so the model waits least and the encoder still keeps up', async () => {
    const child = new MediaProcess('/bin/sleep', ['5']);
    try {
      expect(getPriority(await child.started)).toBe(Math.min(19, getPriority() + 2));
    } finally {
      child.kill();
      await child.exited.catch(() => undefined);
    }
  });

  it('is started by the spawner process, not by this one (a fork of a large process costs every thread its pages again)', async () => {
    const child = new MediaProcess('/bin/sleep', ['5']);
    try {
      const spawnerPid = parentOf(await child.started)!;
      expect(spawnerPid).not.toBe(process.pid);
      expect(parentOf(spawnerPid)).toBe(process.pid);
      expect(readFileSync(`/proc/${spawnerPid}/cmdline`, 'utf8')).toMatch(/spawner-main\.(js|ts)/);
    } finally {
      child.kill();
      await child.exited.catch(() => undefined);
    }
  });

  it('carries bytes both ways through its pipes: 8 MB written to fd 3 come back on stdout, in order', async () => {
    const sent = randomBytes(8 * 1024 * 1024);
    const child = new MediaProcess(SH, ['-c', 'cat <&3'], { readStdout: true, extraInputPipes: 1 });
    const received = read(child.stdout);
    child.inputPipe(3).end(sent);
    await child.exited;
    expect((await received).equals(sent)).toBe(true);
  });

  it('loses none of what the child writes before its pipes reach the engine (stdout and the head of stderr), run after run', async () => {
    for (let run = 0; run < 10; run++) {
      const { stdout, stderr } = await runToCompletion(SH, ['-c', 'echo first >&2; head -c 3000000 /dev/zero; echo last >&2']);
      expect(stdout.length).toBe(3_000_000);
      expect(stderr).toBe('first\nlast\n');
    }
  });

  it('rejects with the exit code and the tail of stderr when the child fails', async () => {
    const child = new MediaProcess(SH, ['-c', 'echo "no such stream" >&2; exit 3']);
    const error = await child.exited.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MediaProcessError);
    expect(error).toMatchObject({ command: 'sh', exitCode: 3, signal: null });
    expect((error as MediaProcessError).stderrTail).toContain('no such stream');
  });

  it("rejects when ffmpeg exits 0 but could not write its output whole (the 2018 build on a full disk: a job completed and was charged with a truncated file)", async () => {
    const full = new MediaProcess(ffmpegPath(), ['-v', 'error', '-nostdin', '-y', '-i', MEDIA.portraitPan, '-t', '0.5', '-f', 'ivf', '/dev/full']);
    const error = await full.exited.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MediaProcessError);
    expect((error as MediaProcessError).message).toMatch(/No space left on device/);
    // its other complaints (a damaged frame it decoded past) are no failure
    await expect(new MediaProcess(SH, ['-c', 'echo "[h264 @ 0x1] error while decoding MB 3 4" >&2; exit 0']).exited).resolves.toBeUndefined();
  });

  it('rejects when the binary cannot be started', async () => {
    const child = new MediaProcess('/nonexistent/ffmpeg', ['-version'], { readStdout: true, extraInputPipes: 1 });
    await expect(child.exited).rejects.toBeInstanceOf(MediaProcessError);
    await expect(child.started).rejects.toBeInstanceOf(MediaProcessError);
    // nothing waits on a pipe that never came
    await expect(new Promise((resolve, reject) => child.inputPipe(3).write('x', (error) => (error ? resolve(error) : reject(new Error('written')))))).resolves.toBeDefined();
  });

  it('kills its child on kill() and when its signal aborts', async () => {
    const killed = new MediaProcess('/bin/sleep', ['30']);
    const pid = await killed.started;
    killed.kill();
    await expect(killed.exited).rejects.toMatchObject({ signal: 'SIGKILL', stderrTail: 'killed' });
    expect(isRunning(pid)).toBe(false);

    const controller = new AbortController();
    const aborted = new MediaProcess('/bin/sleep', ['30'], { signal: controller.signal });
    await aborted.started;
    controller.abort();
    await expect(aborted.exited).rejects.toMatchObject({ signal: 'SIGKILL' });
  });

  it('leaves nothing running when the process that started it dies: the spawner kills its children and exits', async () => {
    const host = spawn(process.execPath, nodeEntryArgs(join(__dirname, 'support'), 'media-process-host'), { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve) => host.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString())));
    const sleep = (JSON.parse(line) as { sleep: number }).sleep;
    const spawnerPid = parentOf(sleep)!;
    host.kill('SIGKILL');
    expect(await until(() => !isRunning(sleep) && !isRunning(spawnerPid), 5000)).toBe(true);
  });
  it('a kill while its stdout is paused (the reader full, then given up) closes the pipe here: the socket, its unread bytes and the buffered frames were kept for good, and `exited` never settled', async () => {
    const openSockets = (): number => readdirSync('/proc/self/fd').filter((fd) => readlinkSafe(`/proc/self/fd/${fd}`).startsWith('socket:')).length;
    const before = openSockets();
    for (let run = 0; run < 10; run++) {
      const child = new MediaProcess(SH, ['-c', 'cat /dev/zero'], { readStdout: true });
      const frames = new FrameReader(child.stdout, 64 * 1024, 3);
      expect(await frames.next()).toHaveLength(64 * 1024);
      await until(() => child.stdout.isPaused(), 2000);
      child.kill();
      await expect(child.exited).rejects.toBeInstanceOf(MediaProcessError);
      await expect(frames.next()).rejects.toThrow(/killed/);
    }
    expect(await until(() => openSockets() <= before, 2000)).toBe(true);
  });
});
