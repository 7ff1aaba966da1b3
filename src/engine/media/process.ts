/**
 * The thin process runner: it executes argument lists built elsewhere (by pure functions) and
 * reports how the process ended. It never decides what to run.
 */
import { Socket } from 'node:net';
import { getPriority } from 'node:os';
import { PassThrough, Readable, Writable } from 'node:stream';
import { spawner } from './spawner';

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

/** the signals that stop a process from outside; a crash's (SIGSEGV, SIGABRT on a hostile file) is the input's doing */
const STOPPED_FROM_OUTSIDE: readonly NodeJS.Signals[] = ['SIGKILL', 'SIGTERM', 'SIGINT', 'SIGHUP'];

/** the log of a process this side killed (MediaProcess.kill) */
const KILLED_HERE = 'killed';

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

  /**
   * The process was stopped from outside, not by what it read: killed by a signal this side did not
   * send (the kernel's OOM killer, an operator), or its spawner went away. Such a run says nothing
   * about its input.
   */
  get interrupted(): boolean {
    if (this.stderrTail === KILLED_HERE) return false;
    return this.signal === null ? this.exitCode === null : STOPPED_FROM_OUTSIDE.includes(this.signal);
  }
}

/**
 * ffmpeg's words for an output it could not write whole. The bundled 2018 build exits 0 after them
 * (an IVF or MP4 whose trailer met a full disk): the output is truncated all the same. A pipe the
 * engine closed early is not such a failure.
 */
const OUTPUT_NOT_WRITTEN = /No space left on device|Disk quota exceeded|Input\/output error|(?:Error writing trailer|Could not write header)(?![^\n]*Broken pipe)/;

export interface MediaProcessOptions {
  /** stdout is a pipe the caller reads (true) or discarded (false, the default) */
  readStdout?: boolean;
  /** extra writable pipes handed to the child as fd 3, 4, ... (`pipe:3` in ffmpeg) */
  extraInputPipes?: number;
  signal?: AbortSignal;
}

/**
 * A running ffmpeg/ffprobe, started through the spawner (spawner.ts). Its pipes are usable at
 * once: what is written before the spawner hands them over waits, and stdout starts when they come.
 * `exited` resolves on exit code 0 once stdout and stderr are read to their end, and rejects otherwise.
 */
export class MediaProcess {
  readonly exited: Promise<void>;
  /** the child's pid once it runs (rejects where it could not be started) */
  readonly started: Promise<number>;
  private childPid: number | undefined;
  private stderrTail = '';
  private killed = false;
  private readonly stdoutPipe: PassThrough | undefined;
  private readonly inputPipes: LateWritable[];
  /** the child's pipes as the spawner handed them over, closed by kill() */
  private readonly sockets = new Set<Socket>();
  /** the spawner that started the child, which kills it too */
  private readonly launcher = spawner();
  private readonly id: number;

  constructor(
    readonly binary: string,
    readonly args: readonly string[],
    options: MediaProcessOptions = {},
  ) {
    const name = binary.split('/').pop() ?? binary;
    this.stdoutPipe = options.readStdout ? new PassThrough() : undefined;
    this.inputPipes = Array.from({ length: options.extraInputPipes ?? 0 }, () => new LateWritable());
    // A child that exits early closes our ends of its pipes; the errors surface through `exited`.
    for (const pipe of [this.stdoutPipe, ...this.inputPipes]) pipe?.on('error', () => undefined);
    /** stdout and stderr read to their end */
    const outputsRead: Promise<void>[] = [];
    if (this.stdoutPipe) outputsRead.push(closed(this.stdoutPipe));

    let onStarted: (pid: number) => void = () => undefined;
    let onNotStarted: (error: Error) => void = () => undefined;
    let onEnd: (outcome: { code: number | null; signal: NodeJS.Signals | null } | { failure: string }) => void = () => undefined;
    this.started = new Promise<number>((resolve, reject) => ((onStarted = resolve), (onNotStarted = reject)));
    this.started.catch(() => undefined); // the failure is `exited`'s to report
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null } | { failure: string }>((resolve) => (onEnd = resolve));
    this.id = this.launcher.start(
      { binary, args, readStdout: options.readStdout ?? false, extraInputPipes: this.inputPipes.length, niceness: Math.min(19, getPriority() + NICENESS_ABOVE_ENGINE) },
      {
        started: (pid) => {
          this.childPid = pid;
          onStarted(pid);
        },
        pipe: (fd, socket) => {
          socket.on('error', () => undefined);
          if (this.killed) return void socket.destroy();
          this.sockets.add(socket);
          socket.once('close', () => this.sockets.delete(socket));
          if (fd === 1) this.readStdout(socket);
          else if (fd === 2) this.collectStderr(socket, outputsRead);
          else this.inputPipes[fd - 3]?.attach(socket);
        },
        exited: (code, signal) => onEnd({ code, signal }),
        failed: (failure) => onEnd({ failure }),
      },
    );

    this.exited = ended.then(async (outcome) => {
      // a pipe never handed over (the child failed to start) is closed, so no writer waits on it
      for (const pipe of this.inputPipes) pipe.abandon();
      if ('failure' in outcome) {
        const failure = new MediaProcessError(name, null, null, outcome.failure);
        onNotStarted(failure);
        this.stdoutPipe?.end();
        throw failure;
      }
      await Promise.all(outputsRead);
      if (outcome.code !== 0 || (!this.killed && OUTPUT_NOT_WRITTEN.test(this.stderrTail))) {
        throw new MediaProcessError(name, outcome.code, outcome.signal, this.killed ? KILLED_HERE : this.stderrTail);
      }
    });
    this.exited.catch(() => undefined); // observed by whoever awaits it; never an unhandled rejection

    const { signal } = options;
    if (signal) {
      if (signal.aborted) this.kill();
      else signal.addEventListener('abort', () => this.kill(), { once: true });
    }
  }

  /**
   * Kills the child and closes its pipes here. A stdout nobody read any more (its reader paused with
   * frames buffered, then given up on a cancel or an encoder's failure) never saw its end: each such
   * kill kept a socket, the kernel's unread bytes and the buffered frames in the engine process for
   * good (about 2 MB a kill at 640x360, measured in review). Stdout ends with an error, which wakes a
   * reader still waiting on it.
   */
  kill(): void {
    if (this.killed) return;
    this.killed = true;
    this.launcher.kill(this.id);
    for (const socket of this.sockets) socket.destroy();
    this.stdoutPipe?.destroy(new MediaProcessError(this.binary.split('/').pop() ?? this.binary, null, null, KILLED_HERE));
  }

  get pid(): number | undefined {
    return this.childPid;
  }

  get stdout(): Readable {
    if (!this.stdoutPipe) throw new Error('stdout was not requested as a pipe');
    return this.stdoutPipe;
  }

  /** the writable end of extra pipe `fd` (3 for ffmpeg's `pipe:3`) */
  inputPipe(fd: number): Writable {
    const pipe = this.inputPipes[fd - 3];
    if (!pipe) throw new Error(`no input pipe on fd ${fd}`);
    return pipe;
  }

  get stderr(): string {
    return this.stderrTail;
  }

  private readStdout(socket: Socket): void {
    const stdout = this.stdoutPipe!;
    socket.pipe(stdout);
    // a pipe that fails ends without its end-of-file: the reader still sees the end
    socket.once('close', () => stdout.writableEnded || stdout.end());
  }

  private collectStderr(socket: Socket, outputsRead: Promise<void>[]): void {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL_BYTES);
    });
    outputsRead.push(closed(socket));
  }
}

function closed(stream: Readable | Socket): Promise<void> {
  return new Promise<void>((resolve) => stream.once('close', () => resolve()));
}

/**
 * The engine's end of an input pipe, writable before the spawner hands the pipe over: each write
 * waits for it, and then goes straight to it (its callback once the pipe took the bytes). The
 * pipe's errors and closing are this stream's.
 */
class LateWritable extends Writable {
  private socket: Socket | undefined;
  private whenAttached: (() => void)[] = [];

  attach(socket: Socket): void {
    this.socket = socket;
    socket.on('error', (error) => this.destroy(error));
    socket.on('close', () => this.destroy());
    for (const run of this.whenAttached.splice(0)) run();
  }

  /** the pipe will not come: the stream closes */
  abandon(): void {
    if (!this.socket) this.destroy();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.onceAttached(() => this.socket!.write(chunk, done));
  }

  override _final(done: (error?: Error | null) => void): void {
    this.onceAttached(() => this.socket!.end(() => done()));
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    this.socket?.destroy();
    done(error);
  }

  private onceAttached(run: () => void): void {
    if (this.socket) run();
    else this.whenAttached.push(run);
  }
}

export interface CompletedProcess {
  stdout: Buffer;
  stderr: string;
}

/** A process's stdout went past what its caller keeps (runToCompletion's `maxStdoutBytes`); the process was killed. */
export class StdoutTooLarge extends Error {
  constructor(readonly limitBytes: number) {
    super(`its output went past ${limitBytes} bytes`);
    this.name = 'StdoutTooLarge';
  }
}

/**
 * Runs to completion, collecting stdout (for small outputs: ffprobe's JSON, a tiny thumbnail).
 * `maxStdoutBytes`: past it the process is killed and this rejects with StdoutTooLarge, so that what
 * the input makes the process print (ffprobe prints every metadata tag, which a small file can
 * declare compressed at up to gigabytes) is never all held here.
 */
export async function runToCompletion(
  binary: string,
  args: readonly string[],
  signal?: AbortSignal,
  { maxStdoutBytes = Infinity }: { maxStdoutBytes?: number } = {},
): Promise<CompletedProcess> {
  const process = new MediaProcess(binary, args, { readStdout: true, signal });
  const chunks: Buffer[] = [];
  let bytes = 0;
  let tooLarge: StdoutTooLarge | undefined;
  process.stdout.on('data', (chunk: Buffer) => {
    if (tooLarge) return;
    bytes += chunk.length;
    if (bytes > maxStdoutBytes) {
      tooLarge = new StdoutTooLarge(maxStdoutBytes);
      chunks.length = 0;
      process.kill();
      return;
    }
    chunks.push(chunk);
  });
  try {
    await process.exited;
  } catch (error) {
    throw tooLarge ?? error;
  }
  if (tooLarge) throw tooLarge;
  return { stdout: Buffer.concat(chunks), stderr: process.stderr };
}
