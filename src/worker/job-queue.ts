import { randomUUID } from 'node:crypto';
import { RemoteHealth, RemoteOutput, RemoteStatus, RemoteStatusName, RemoteTaskInput, RunRequest, runKeyOf } from '../common/worker-protocol/runpod-protocol';

/** A failure with one of the API's job failure codes (input_invalid, output_failed, ...) when it has one. */
export class JobFailure extends Error {
  constructor(
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'JobFailure';
  }
}

export interface ProcessContext {
  signal: AbortSignal;
  onProgress(percent: number): void;
}

/** Processes one job's input to its output; rejects with JobFailure (or anything, reported as a plain failure). */
export type JobProcessor = (input: RemoteTaskInput, context: ProcessContext) => Promise<RemoteOutput>;

export interface JobQueueOptions {
  concurrency: number;
  /** jobs that may wait beyond the running ones */
  queueSize: number;
  resultTtlMs: number;
  /** told once per job, with its final status object, when it has a webhook */
  onFinished(webhook: string, status: RemoteStatus): void;
  now?: () => number;
}

type MaybePromise<T> = T | Promise<T>;

/** What the HTTP server asks of a queue: this in-memory one, or the durable one (durable-job-queue.ts). */
export interface WorkerQueue {
  submit(request: RunRequest): MaybePromise<RemoteStatus | 'full'>;
  status(id: string): MaybePromise<RemoteStatus | null>;
  cancel(id: string): MaybePromise<RemoteStatus | null>;
  retry(id: string): MaybePromise<RemoteStatus | null | 'refused' | 'full'>;
  health(): MaybePromise<RemoteHealth>;
  close(graceMs?: number): Promise<void>;
}

interface WorkerJob {
  id: string;
  request: RunRequest;
  status: RemoteStatusName;
  progress: number;
  queuedAt: number;
  startedAt?: number;
  finishedAt?: number;
  output?: RemoteOutput;
  error?: string;
  errorCode?: string;
  controller?: AbortController;
  timer?: NodeJS.Timeout;
}

const FINISHED: readonly RemoteStatusName[] = ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'];

/**
 * The worker's jobs in memory: a bounded FIFO feeding `concurrency` runs, each status kept
 * `resultTtlMs` after it finished (then unknown: 404). Cancel and the execution timeout abort a
 * running job's processor; its status changes at once, its slot frees when the processor returns.
 */
export class WorkerJobQueue implements WorkerQueue {
  private readonly jobs = new Map<string, WorkerJob>();
  private readonly waiting: WorkerJob[] = [];
  private running = 0;
  private readonly counts = { completed: 0, failed: 0, retried: 0 };
  private readonly now: () => number;
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly process: JobProcessor,
    private readonly options: JobQueueOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.sweeper = setInterval(() => this.sweep(), Math.min(60_000, Math.max(1000, options.resultTtlMs / 2)));
    this.sweeper.unref();
  }

  /**
   * Queues a run, or says the queue is full. The same API job (or chunk of one: runKeyOf) sent again
   * while its run is not finished gets that run back (a /run retried after a lost answer does not
   * process twice).
   */
  submit(request: RunRequest): RemoteStatus | 'full' {
    const key = runKeyOf(request.input);
    const existing = [...this.jobs.values()].find((job) => runKeyOf(job.request.input) === key && !FINISHED.includes(job.status));
    if (existing) return this.view(existing);
    if (!this.hasRoom()) return 'full';
    const job: WorkerJob = { id: randomUUID(), request, status: 'IN_QUEUE', progress: 0, queuedAt: this.now() };
    this.jobs.set(job.id, job);
    this.waiting.push(job);
    const accepted = this.view(job);
    this.pump();
    return accepted;
  }

  status(id: string): RemoteStatus | null {
    this.sweep();
    const job = this.jobs.get(id);
    return job ? this.view(job) : null;
  }

  cancel(id: string): RemoteStatus | null {
    const job = this.jobs.get(id);
    if (!job) return null;
    if (!FINISHED.includes(job.status)) this.stop(job, 'CANCELLED', 'The job was canceled');
    return this.view(job);
  }

  /** Queues a FAILED or TIMED_OUT job again; null when unknown, 'refused' for any other status, 'full' when there is no room. */
  retry(id: string): RemoteStatus | null | 'refused' | 'full' {
    const job = this.jobs.get(id);
    if (!job) return null;
    if (job.status !== 'FAILED' && job.status !== 'TIMED_OUT') return 'refused';
    if (!this.hasRoom()) return 'full';
    Object.assign(job, { status: 'IN_QUEUE', progress: 0, queuedAt: this.now(), startedAt: undefined, finishedAt: undefined, error: undefined, errorCode: undefined });
    this.counts.retried += 1;
    this.waiting.push(job);
    const accepted = this.view(job);
    this.pump();
    return accepted;
  }

  health(): RemoteHealth {
    return {
      jobs: { completed: this.counts.completed, failed: this.counts.failed, inProgress: this.running, inQueue: this.waiting.length, retried: this.counts.retried },
      workers: { idle: Math.max(0, this.options.concurrency - this.running), running: this.running },
    };
  }

  /** Refuses new jobs, cancels queued and running ones, and waits (at most `graceMs`) for the running ones to stop. */
  async close(graceMs = 10_000): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    for (const job of this.jobs.values()) if (!FINISHED.includes(job.status)) this.stop(job, 'CANCELLED', 'The worker is shutting down');
    const deadline = this.now() + graceMs;
    while (this.running > 0 && this.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  }

  private pump(): void {
    while (!this.closed && this.running < this.options.concurrency && this.waiting.length > 0) {
      const job = this.waiting.shift()!;
      const ttl = job.request.policy?.ttl;
      if (ttl && this.now() - job.queuedAt > ttl) {
        this.finish(job, 'TIMED_OUT', { error: 'The job waited in the queue past its ttl' });
        continue;
      }
      void this.start(job);
    }
  }

  private async start(job: WorkerJob): Promise<void> {
    this.running += 1;
    const controller = new AbortController();
    Object.assign(job, { status: 'IN_PROGRESS', startedAt: this.now(), controller });
    const executionTimeout = job.request.policy?.executionTimeout;
    if (executionTimeout) job.timer = setTimeout(() => this.stop(job, 'TIMED_OUT', `Processing took longer than ${executionTimeout} ms`), executionTimeout);
    try {
      const output = await this.process(job.request.input, {
        signal: controller.signal,
        onProgress: (percent) => (job.progress = Math.round(Math.min(100, Math.max(0, percent)) * 10) / 10),
      });
      this.finish(job, 'COMPLETED', { output });
    } catch (error) {
      this.finish(job, 'FAILED', { error: (error as Error).message || 'Processing failed', errorCode: error instanceof JobFailure ? error.code : undefined });
    } finally {
      clearTimeout(job.timer);
      this.running -= 1;
      this.pump();
    }
  }

  /** Ends a job that has not finished: a queued one leaves the queue, a running one is aborted. */
  private stop(job: WorkerJob, status: 'CANCELLED' | 'TIMED_OUT', message: string): void {
    const queued = this.waiting.indexOf(job);
    if (queued >= 0) this.waiting.splice(queued, 1);
    this.finish(job, status, status === 'TIMED_OUT' ? { error: message } : {});
    job.controller?.abort();
  }

  /** The first final status wins: a processor returning after its job was canceled changes nothing. */
  private finish(job: WorkerJob, status: RemoteStatusName, result: { output?: RemoteOutput; error?: string; errorCode?: string }): void {
    if (FINISHED.includes(job.status)) return;
    Object.assign(job, { status, finishedAt: this.now(), ...result });
    if (status === 'COMPLETED') this.counts.completed += 1;
    if (status === 'FAILED' || status === 'TIMED_OUT') this.counts.failed += 1;
    if (job.request.webhook) this.options.onFinished(job.request.webhook, this.view(job));
  }

  /** Forgets finished jobs past the result TTL (a canceled run still stopping keeps its slot until it returns). */
  private sweep(): void {
    const horizon = this.now() - this.options.resultTtlMs;
    for (const [id, job] of this.jobs) if (job.finishedAt !== undefined && job.finishedAt < horizon) this.jobs.delete(id);
  }

  /** Room for one more job: a free run slot, or a place in the waiting line. */
  private hasRoom(): boolean {
    return !this.closed && this.waiting.length < this.options.queueSize + Math.max(0, this.options.concurrency - this.running);
  }

  private view(job: WorkerJob): RemoteStatus {
    const now = this.now();
    const started = job.startedAt ?? (FINISHED.includes(job.status) ? job.finishedAt : undefined);
    const status: RemoteStatus = {
      id: job.id,
      status: job.status,
      delayTime: (started ?? now) - job.queuedAt,
      executionTime: job.startedAt !== undefined ? (job.finishedAt ?? now) - job.startedAt : 0,
    };
    if (job.status === 'IN_PROGRESS' || job.status === 'IN_QUEUE') status.progress = job.progress;
    if (job.output) status.output = job.output;
    if (job.error) status.error = job.error;
    if (job.errorCode) status.errorCode = job.errorCode;
    return status;
  }
}
