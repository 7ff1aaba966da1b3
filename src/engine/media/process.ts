/**
 * The thin process runner: it executes argument lists built elsewhere (by pure functions) and
 * reports how the process ended. It never decides what to run.
 */
import { ChildProcess, spawn, StdioOptions } from 'node:child_process';
import { getPriority, setPriority } from 'node:os';
import { Readable, Writable } from 'node:stream';

const STDERR_TAIL_BYTES = 8 * 1024;

/**
 * ffmpeg runs at a slightly lower priority than the engine (niceness +2, up to 19): where the
 * model is the critical path (`human`, `light` at 640x360) the decoder and encoder, which work
 * frames ahead of and behind it, yield to it, and the scheduler still gives them every core the
 * engine leaves idle. Not much lower: where the encoder is as busy as the model (`light` at
 * 1280x720, VP9 with alpha), at +10 it got little CPU while the model ran, the model filled its
 * room for mattes and then waited while the encoder worked alone on fewer threads than cores.
 * `light`, wall / CPU-bound minimum over 4 runs each (with room for 1 MB of mattes, stream-mattes.ts):
 * +10: 1.09 at 640x360, 1.15 at 1280x720; +2: 1.09 and 1.07. `human`'s speed is the same at both.
 */
const NICENESS_ABOVE_ENGINE = 2;

function runBelowEngine(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    setPriority(pid, Math.min(19, getPriority() + NICENESS_ABOVE_ENGINE));
  } catch {
    // not permitted here: the child keeps the engine's priority
  }
}

export class MediaProcessError extends Error {
  constructor(
    readonly command: string,
    readonly exitCode: number | null,
    readonly signal: NodeJS.Signals | null,
    readonly stderrTail: string,
  ) {
    super(`${command} failed (${signal ?? `exit ${exitCode}`}): ${stderrTail.trim().split('\n').slice(-3).join(' | ')}`);
    this.name = 'MediaProcessError';
  }
}

export interface MediaProcessOptions {
  /** stdout is a pipe the caller reads (true) or discarded (false, the default) */
  readStdout?: boolean;
  /** extra writable pipes handed to the child as fd 3, 4, ... (`pipe:3` in ffmpeg) */
  extraInputPipes?: number;
  signal?: AbortSignal;
}

/** A running ffmpeg/ffprobe. `exited` resolves on exit code 0 and rejects otherwise. */
export class MediaProcess {
  readonly exited: Promise<void>;
  private readonly child: ChildProcess;
  private stderrTail = '';
  private killed = false;

  constructor(
    readonly binary: string,
    readonly args: readonly string[],
    options: MediaProcessOptions = {},
  ) {
    const stdio: StdioOptions = ['ignore', options.readStdout ? 'pipe' : 'ignore', 'pipe'];
    for (let i = 0; i < (options.extraInputPipes ?? 0); i++) stdio.push('pipe');
    this.child = spawn(binary, args, { stdio });
    runBelowEngine(this.child.pid);
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL_BYTES);
    });
    // A child that exits early closes our ends of its pipes; the errors surface through `exited`.
    for (const stream of this.child.stdio) stream?.on('error', () => undefined);

    const name = binary.split('/').pop() ?? binary;
    this.exited = new Promise<void>((resolve, reject) => {
      this.child.on('error', (error) => reject(new MediaProcessError(name, null, null, error.message)));
      this.child.on('close', (code, signal) => {
        if (code === 0) resolve();
        else reject(new MediaProcessError(name, code, signal, this.killed ? 'killed' : this.stderrTail));
      });
    });
    this.exited.catch(() => undefined); // observed by whoever awaits it; never an unhandled rejection

    const { signal } = options;
    if (signal) {
      if (signal.aborted) this.kill();
      else signal.addEventListener('abort', () => this.kill(), { once: true });
    }
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get stdout(): Readable {
    if (!this.child.stdout) throw new Error('stdout was not requested as a pipe');
    return this.child.stdout;
  }

  /** the writable end of extra pipe `fd` (3 for ffmpeg's `pipe:3`) */
  inputPipe(fd: number): Writable {
    const stream = this.child.stdio[fd];
    if (!stream || !(stream instanceof Writable)) throw new Error(`no input pipe on fd ${fd}`);
    return stream;
  }

  get stderr(): string {
    return this.stderrTail;
  }

  kill(): void {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.killed = true;
    this.child.kill('SIGKILL');
  }
}

export interface CompletedProcess {
  stdout: Buffer;
  stderr: string;
}

/** Runs to completion, collecting stdout (for small outputs: ffprobe's JSON, a tiny thumbnail). */
export async function runToCompletion(
  binary: string,
  args: readonly string[],
  signal?: AbortSignal,
): Promise<CompletedProcess> {
  const process = new MediaProcess(binary, args, { readStdout: true, signal });
  const chunks: Buffer[] = [];
  process.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  await process.exited;
  return { stdout: Buffer.concat(chunks), stderr: process.stderr };
}
