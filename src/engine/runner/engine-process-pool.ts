/**
 * Runs engine jobs in child processes so the service's event loop never does the heavy work.
 * Up to `concurrency` children, each running one job at a time and kept warm afterwards (models
 * load once per child). Cancel: the child is asked to abort (it kills its ffmpeg processes and
 * removes partial output); if it has not answered within `cancelGraceMs`, its whole process group
 * is killed and the pool removes the partial output itself. A job whose child dies under it runs
 * once more on a fresh child (RESTARTS_AFTER_DEATH).
 */
import { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removePartialOutputs } from '../output/partial-output';
import { EngineError, EngineProgress, EngineRequest, EngineResult } from '../types';
import { launchEngineChild } from './child-launcher';
import { ChildMessage, ParentMessage, SerializedError } from './messages';

export interface EngineProcessPoolOptions {
  cacheDir: string;
  /** children running jobs at once (default 1) */
  concurrency?: number;
  /** parent of each job's scratch directory (default: the OS temp dir) */
  workDir?: string;
  /** module exporting `loadModel(name, { cacheDir })`; default: the engine's models */
  modelModule?: string;
  /** how long a canceled child may take to stop by itself (default 3000 ms) */
  cancelGraceMs?: number;
}

interface Job {
  id: number;
  request: EngineRequest;
  onProgress?: (progress: EngineProgress) => void;
  signal?: AbortSignal;
  resolve: (result: EngineResult) => void;
  reject: (error: Error) => void;
  /** runs on a fresh child left to a job whose child died under it */
  restartsLeft: number;
  /** frames reported done so far: a run started again reports nothing until it passes them */
  framesReported: number;
}

/** how a run on a child ended */
type RunEnd = { result: EngineResult } | { error: Error } | { died: string };

interface Worker {
  child: ChildProcess;
  ready: Promise<void>;
  job?: Job;
  /** ends the run of `job`; set while the child runs it */
  end?: (end: RunEnd) => void;
  /** why the child exited, once it has */
  exited?: string;
}

/**
 * A job whose engine child dies under it (the kernel's OOM killer, a crash in a native library) is
 * run once more on a fresh child: such a death often belongs to the moment (another job's memory)
 * rather than to the video. A second death fails it.
 */
const RESTARTS_AFTER_DEATH = 1;

export class EngineProcessPool {
  private readonly workers = new Set<Worker>();
  private readonly queue: Job[] = [];
  private nextJobId = 1;
  private closed = false;
  private readonly concurrency: number;

  constructor(private readonly options: EngineProcessPoolOptions) {
    this.concurrency = Math.max(1, Math.floor(options.concurrency ?? 1));
  }

  run(request: EngineRequest, onProgress?: (progress: EngineProgress) => void, signal?: AbortSignal): Promise<EngineResult> {
    if (this.closed) return Promise.reject(new Error('the engine pool is closed'));
    if (signal?.aborted) return Promise.reject(new EngineError('canceled', 'processing was canceled'));
    return new Promise<EngineResult>((resolve, reject) => {
      const job: Job = { id: this.nextJobId++, request, onProgress, signal, resolve, reject, restartsLeft: RESTARTS_AFTER_DEATH, framesReported: 0 };
      this.queue.push(job);
      signal?.addEventListener('abort', () => this.cancel(job), { once: true });
      this.dispatch();
    });
  }

  /** Stops every child; queued jobs are rejected and running ones canceled. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('the engine pool is closed'));
    const exits = [...this.workers].map((worker) => this.stop(worker));
    await Promise.all(exits);
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let worker = [...this.workers].find((candidate) => !candidate.job);
      if (!worker && this.workers.size < this.concurrency) {
        try {
          worker = this.startWorker();
        } catch (error) {
          // a process that cannot be made now (fork's ENOMEM): the job fails, where it stayed queued and
          // ran after its caller was told it failed, or the throw took the whole process down
          this.queue.shift()?.reject(new Error(`the engine process could not be started: ${(error as Error).message}`));
          continue;
        }
      }
      if (!worker) return;
      const job = this.queue.shift()!;
      this.start(worker, job).catch((error: Error) => job.reject(error));
    }
  }

  private startWorker(): Worker {
    const child = launchEngineChild({
      cacheDir: this.options.cacheDir,
      modelModule: this.options.modelModule ?? join(__dirname, '..', 'models'),
    });
    let onReady: () => void = () => undefined;
    let onFailure: (error: Error) => void = () => undefined;
    const worker: Worker = { child, ready: new Promise<void>((resolve, reject) => ((onReady = resolve), (onFailure = reject))) };
    worker.ready.catch(() => undefined);
    child.on('message', (message: ChildMessage) => (message.type === 'ready' ? onReady() : this.onMessage(worker, message)));
    child.on('error', (error) => {
      onFailure(error);
      // a child that never started (ENOENT, EAGAIN, EMFILE) emits no exit: left in the pool, it took every
      // later job as free and failed each with its old error
      if (child.pid === undefined) this.onExit(worker, null, null, `could not start: ${error.message}`);
    });
    child.on('exit', (code, signal) => {
      onFailure(new Error(`engine process exited during start-up (${signal ?? code})`));
      this.onExit(worker, code, signal);
    });
    this.workers.add(worker);
    return worker;
  }

  private async start(worker: Worker, job: Job): Promise<void> {
    worker.job = job;
    let workDir: string | undefined;
    let end: RunEnd;
    try {
      const runIn = await mkdtemp(join(this.options.workDir ?? tmpdir(), 'backdrop-job-'));
      workDir = runIn;
      await worker.ready;
      if (job.signal?.aborted) throw new EngineError('canceled', 'processing was canceled');
      end = await new Promise<RunEnd>((resolve) => {
        if (worker.exited) return resolve({ died: worker.exited });
        worker.end = resolve;
        this.send(worker, { type: 'run', jobId: job.id, request: job.request, workDir: runIn });
      });
    } catch (error) {
      end = { error: error as Error };
    } finally {
      worker.end = undefined;
      // the worker is freed whatever the removal does: a throw here held its slot for good
      if (workDir) await rm(workDir, { recursive: true, force: true }).catch(() => undefined);
      if (worker.job === job) worker.job = undefined;
    }
    if ('died' in end) await removePartialOutputs(job.request.outputPath);
    this.settle(job, end);
    if (!this.closed) this.dispatch();
  }

  private settle(job: Job, end: RunEnd): void {
    if ('result' in end) return job.resolve(end.result);
    if ('error' in end) return job.reject(end.error);
    if (job.signal?.aborted) return job.reject(new EngineError('canceled', 'processing was canceled'));
    if (job.restartsLeft > 0 && !this.closed) {
      job.restartsLeft -= 1;
      this.queue.unshift(job);
      return;
    }
    job.reject(new Error(`engine process died (${end.died}), on a fresh process too`));
  }

  private onMessage(worker: Worker, message: ChildMessage): void {
    const job = worker.job;
    if (message.type === 'ready' || !job || message.jobId !== job.id) return;
    if (message.type === 'progress') {
      if (message.progress.framesDone < job.framesReported) return;
      job.framesReported = message.progress.framesDone;
      job.onProgress?.(message.progress);
      return;
    }
    // The child is done with the job: from here its output is final, not partial. start() frees the
    // worker only after removing the work directory, and a close() or the child's exit in between
    // would otherwise take the finished output for a partial one and delete it.
    worker.job = undefined;
    worker.end?.(message.type === 'result' ? { result: message.result } : { error: deserializeError(message.error) });
  }

  private onExit(worker: Worker, code: number | null, signal: NodeJS.Signals | null, reason?: string): void {
    this.workers.delete(worker);
    worker.exited = reason ?? signal ?? `exit ${code}`;
    if (worker.job) worker.end?.({ died: worker.exited });
  }

  private cancel(job: Job): void {
    const queued = this.queue.indexOf(job);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      job.reject(new EngineError('canceled', 'processing was canceled'));
      return;
    }
    const worker = [...this.workers].find((candidate) => candidate.job === job);
    if (!worker) return;
    this.send(worker, { type: 'cancel', jobId: job.id });
    const timer = setTimeout(() => {
      if (worker.job === job) killGroup(worker.child);
    }, this.options.cancelGraceMs ?? 3000);
    timer.unref();
  }

  private async stop(worker: Worker): Promise<void> {
    if (worker.child.exitCode !== null || worker.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => worker.child.once('exit', () => resolve()));
    if (worker.job) {
      // the child aborts its run when disconnected (removing partial output); give it a moment
      worker.job.reject(new EngineError('canceled', 'the engine pool was closed'));
      const timer = setTimeout(() => killGroup(worker.child), this.options.cancelGraceMs ?? 3000);
      timer.unref();
    }
    if (worker.child.connected) worker.child.disconnect();
    else killGroup(worker.child);
    await exited;
  }

  private send(worker: Worker, message: ParentMessage): void {
    if (worker.child.connected) worker.child.send(message);
  }
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL'); // the child and the ffmpeg processes it started
  } catch {
    child.kill('SIGKILL');
  }
}

function deserializeError(error: SerializedError): Error {
  return error.code ? new EngineError(error.code, error.message) : new Error(error.message);
}
