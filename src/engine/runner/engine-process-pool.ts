/**
 * Runs engine jobs in child processes so the service's event loop never does the heavy work.
 * Up to `concurrency` children, each running one job at a time and kept warm afterwards (models
 * load once per child). Cancel: the child is asked to abort (it kills its ffmpeg processes and
 * removes partial output); if it has not answered within `cancelGraceMs`, its whole process group
 * is killed and the pool removes the partial output itself.
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
}

interface Worker {
  child: ChildProcess;
  ready: Promise<void>;
  job?: Job;
}

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
      const job: Job = { id: this.nextJobId++, request, onProgress, signal, resolve, reject };
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
      if (!worker && this.workers.size < this.concurrency) worker = this.startWorker();
      if (!worker) return;
      void this.start(worker, this.queue.shift()!);
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
    child.on('error', (error) => onFailure(error));
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
    try {
      workDir = await mkdtemp(join(this.options.workDir ?? tmpdir(), 'backdrop-job-'));
      await worker.ready;
      if (job.signal?.aborted) throw new EngineError('canceled', 'processing was canceled');
      const settled = new Promise<void>((resolve) => {
        const { resolve: done, reject: failed } = job;
        job.resolve = (result) => (resolve(), done(result));
        job.reject = (error) => (resolve(), failed(error));
      });
      this.send(worker, { type: 'run', jobId: job.id, request: job.request, workDir });
      await settled;
    } catch (error) {
      job.reject(error as Error);
    } finally {
      if (workDir) await rm(workDir, { recursive: true, force: true });
      if (worker.job === job) worker.job = undefined;
      if (!this.closed) this.dispatch();
    }
  }

  private onMessage(worker: Worker, message: ChildMessage): void {
    const job = worker.job;
    if (message.type === 'ready' || !job || message.jobId !== job.id) return;
    if (message.type === 'progress') {
      job.onProgress?.(message.progress);
      return;
    }
    // The child is done with the job: from here its output is final, not partial. start() frees the
    // worker only after removing the work directory, and a close() or the child's exit in between
    // would otherwise take the finished output for a partial one and delete it.
    worker.job = undefined;
    if (message.type === 'result') job.resolve(message.result);
    else job.reject(deserializeError(message.error));
  }

  private onExit(worker: Worker, code: number | null, signal: NodeJS.Signals | null): void {
    this.workers.delete(worker);
    const job = worker.job;
    if (!job) return;
    void removePartialOutputs(job.request.outputPath).finally(() => {
      if (job.signal?.aborted) job.reject(new EngineError('canceled', 'processing was canceled'));
      else job.reject(new Error(`engine process died (${signal ?? `exit ${code}`})`));
    });
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
