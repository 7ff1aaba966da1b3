import { DelayedError, Job, Queue, UnrecoverableError, Worker, WorkerOptions } from 'bullmq';
import { RemoteHealth, RemoteOutput, RemoteStatus, RemoteStatusName, RemoteTaskInput, RunRequest, runKeyOf } from '../common/worker-protocol/runpod-protocol';
import { JobFailure, JobProcessor, JobQueueOptions, WorkerQueue } from './job-queue';
import { oneAtATime } from '../common/one-at-a-time';
import { DurableQueueConfig } from '../config/worker-server-config';
import { bullConnectionOptions } from '../infrastructure/queue/queue-connection';

const QUEUE_NAME = 'runs';
/** how often a running job's cancel flag is read back (cancel may land on another worker server) */
const CANCEL_CHECK_MS = 1000;
/** progress is written at most this often */
const PROGRESS_WRITE_MS = 500;
/** a job may outlive this many restarts of the process running it */
const MAX_STALLED = 20;
/** the line, cancelled runs included, holds at most this many times the runs it has room for (hasRoom) */
const LINE_BOUND = 2;
/** the states of a run not yet taken */
const WAITING_STATES: Array<'waiting' | 'delayed' | 'prioritized'> = ['waiting', 'delayed', 'prioritized'];

interface RunData {
  request: RunRequest;
  cancelled?: boolean;
}

type Ending = 'CANCELLED' | 'TIMED_OUT' | 'SHUTDOWN';

/** A final status other than COMPLETED, carried in the BullMQ failure reason. */
interface FailureRecord {
  status: 'FAILED' | 'CANCELLED' | 'TIMED_OUT';
  error?: string;
  errorCode?: string;
}

interface LocalRun {
  controller: AbortController;
  ending?: Ending;
}

const runIdOf = (input: RemoteTaskInput): string => `run_${runKeyOf(input).replace(/[^A-Za-z0-9_-]/g, '_')}`;

/**
 * The worker server's jobs in BullMQ (Redis or Postgres, as the API's queue), so a restart loses
 * nothing: a job whose process died is "stalled" once its lock lapses, and is run again by whichever
 * worker server sharing the queue looks first; SIGTERM hands running jobs straight back. The RunPod
 * id of a run is derived from the API's job id, so a /run sent again gets the same run.
 *
 * Final statuses: COMPLETED is BullMQ's completed (the output is its return value); FAILED,
 * CANCELLED and TIMED_OUT are BullMQ's failed, told apart by the failure record in its reason.
 * /retry moves a FAILED or TIMED_OUT job back to waiting.
 */
export class DurableWorkerJobQueue implements WorkerQueue {
  private readonly queue: Queue<RunData>;
  private readonly worker: Worker<RunData, RemoteOutput>;
  private readonly local = new Map<string, LocalRun>();
  private readonly counts = { retried: 0 };
  private readonly cancelChecker: NodeJS.Timeout;
  private closing = false;

  private constructor(
    private readonly process: JobProcessor,
    private readonly options: JobQueueOptions,
    config: DurableQueueConfig,
  ) {
    const connection = bullConnectionOptions(config);
    this.queue = new Queue<RunData>(QUEUE_NAME, connection);
    const workerOptions: WorkerOptions = {
      ...(connection as WorkerOptions),
      concurrency: options.concurrency,
      lockDuration: config.lockDurationMs,
      stalledInterval: config.stalledIntervalMs,
      maxStalledCount: MAX_STALLED,
    };
    this.worker = new Worker<RunData, RemoteOutput>(QUEUE_NAME, (job, token) => this.run(job, token), workerOptions);
    this.worker.on('completed', (job) => this.announce(job));
    this.worker.on('failed', (job) => job && this.announce(job));
    // connection trouble: BullMQ reconnects by itself (an 'error' event nobody listens to would end the process)
    this.worker.on('error', () => undefined);
    this.queue.on('error', () => undefined);
    this.cancelChecker = setInterval(() => void this.checkCancelled(), CANCEL_CHECK_MS);
    this.cancelChecker.unref();
  }

  static async open(process: JobProcessor, options: JobQueueOptions, config: DurableQueueConfig): Promise<DurableWorkerJobQueue> {
    const queue = new DurableWorkerJobQueue(process, options, config);
    await queue.worker.waitUntilReady();
    await queue.queue.waitUntilReady();
    return queue;
  }

  /**
   * Queues a run, or says the queue is full. The same API job (or chunk) sent again while its run
   * is not finished gets that run back. A run cancelled but not yet dropped (BullMQ fails no job that
   * no worker holds: `hasRoom`) is finished for the caller, as in the in-memory queue: it is replaced,
   * or, while a worker is still dropping it, the caller is told to come back (429). Handed back, its
   * CANCELLED failed the API's retry of a chunk it had given up on for good.
   */
  async submit(request: RunRequest): Promise<RemoteStatus | 'full'> {
    const id = runIdOf(request.input);
    const existing = await this.snapshot(id);
    if (existing) {
      const finished = existing.state === 'completed' || existing.state === 'failed';
      if (!finished && !existing.job.data.cancelled) return this.view(existing.job, existing.state);
      // a worker holds a run it is dropping: it cannot be removed until it lets go
      if (!(await existing.job.remove().then(() => true, () => false))) return 'full';
    }
    if (!(await this.hasRoom())) return 'full';
    const removeAfter = { age: Math.ceil(this.options.resultTtlMs / 1000) };
    const job = await this.queue.add('run', { request }, { jobId: id, attempts: 1, removeOnComplete: removeAfter, removeOnFail: removeAfter });
    return this.view(job, 'waiting');
  }

  async status(id: string): Promise<RemoteStatus | null> {
    const found = await this.snapshot(id);
    if (!found) return null;
    const { job, state } = found;
    // BullMQ removes finished jobs past their age only when others finish; a status past it is gone all the same.
    if (job.finishedOn && Date.now() - job.finishedOn > this.options.resultTtlMs) {
      await job.remove().catch(() => undefined);
      return null;
    }
    return this.view(job, state);
  }

  async cancel(id: string): Promise<RemoteStatus | null> {
    const found = await this.snapshot(id);
    if (!found) return null;
    const { job, state } = found;
    if (state === 'completed' || state === 'failed') return this.view(job, state);
    await job.updateData({ ...job.data, cancelled: true });
    this.end(id, 'CANCELLED');
    return { ...this.view(job, state), status: 'CANCELLED' };
  }

  async retry(id: string): Promise<RemoteStatus | null | 'refused' | 'full'> {
    const found = await this.snapshot(id);
    if (!found) return null;
    const { job } = found;
    const view = this.view(job, found.state);
    if (view.status !== 'FAILED' && view.status !== 'TIMED_OUT') return 'refused';
    if (!(await this.hasRoom())) return 'full';
    await job.retry('failed');
    this.counts.retried += 1;
    return { id, status: 'IN_QUEUE' };
  }

  async health(): Promise<RemoteHealth> {
    const [counts, inQueue] = await Promise.all([this.queue.getJobCounts('completed', 'failed', 'active'), this.waitingRuns()]);
    const running = this.local.size;
    return {
      jobs: { completed: counts.completed ?? 0, failed: counts.failed ?? 0, inProgress: counts.active ?? 0, inQueue, retried: this.counts.retried },
      workers: { idle: Math.max(0, this.options.concurrency - running), running },
    };
  }

  /** Stops taking jobs and hands the running ones back to the queue (another worker server, or this one restarted, runs them). */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.cancelChecker);
    for (const id of this.local.keys()) this.end(id, 'SHUTDOWN');
    await this.worker.close();
    await this.queue.close();
  }

  private async run(job: Job<RunData>, token?: string): Promise<RemoteOutput> {
    const { request } = job.data;
    if (job.data.cancelled) throw failure({ status: 'CANCELLED' });
    const ttl = request.policy?.ttl;
    if (ttl && Date.now() - job.timestamp > ttl) throw failure({ status: 'TIMED_OUT', error: 'The job waited in the queue past its ttl' });
    const localRun: LocalRun = { controller: new AbortController() };
    this.local.set(job.id!, localRun);
    const executionTimeout = request.policy?.executionTimeout;
    const timer = executionTimeout ? setTimeout(() => this.end(job.id!, 'TIMED_OUT'), executionTimeout) : undefined;
    let lastProgressAt = 0;
    try {
      return await this.process(request.input, {
        signal: localRun.controller.signal,
        onProgress: (percent) => {
          if (performance.now() - lastProgressAt < PROGRESS_WRITE_MS) return;
          lastProgressAt = performance.now();
          job.updateProgress(Math.round(Math.min(100, Math.max(0, percent)) * 10) / 10).catch(() => undefined);
        },
      });
    } catch (error) {
      if (localRun.ending === 'SHUTDOWN') {
        // Back to the queue as it was: not a failure, no attempt used.
        await job.moveToDelayed(Date.now(), token);
        throw new DelayedError();
      }
      if (localRun.ending === 'CANCELLED') throw failure({ status: 'CANCELLED' });
      if (localRun.ending === 'TIMED_OUT') throw failure({ status: 'TIMED_OUT', error: `Processing took longer than ${executionTimeout} ms` });
      throw failure({ status: 'FAILED', error: (error as Error).message || 'Processing failed', errorCode: error instanceof JobFailure ? error.code : undefined });
    } finally {
      clearTimeout(timer);
      this.local.delete(job.id!);
    }
  }

  private end(id: string, ending: Ending): void {
    const run = this.local.get(id);
    if (!run || run.ending) return;
    run.ending = ending;
    run.controller.abort();
  }

  /**
   * Cancels the jobs running here whose cancel flag another worker server set. One check at a time:
   * on a Redis that hangs, a check every second would pile up waiting reads.
   */
  private readonly checkCancelled = oneAtATime(async (): Promise<void> => {
    for (const id of this.local.keys()) {
      const job = (await this.queue.getJob(id).catch(() => undefined)) as Job<RunData> | undefined;
      if (job?.data.cancelled) this.end(id, 'CANCELLED');
    }
  });

  private announce(job: Job<RunData>): void {
    if (this.closing && !job.finishedOn) return;
    const webhook = job.data.request.webhook;
    if (!webhook) return;
    void job.getState().then((state) => this.options.onFinished(webhook, this.view(job, state)), () => undefined);
  }

  /**
   * A job with its state. The state is read first: a job read before it could predate the state
   * (read 'failed' after a copy taken while it was active, without its failure record).
   */
  private async snapshot(id: string): Promise<{ job: Job<RunData>; state: string } | null> {
    const state = await this.queue.getJobState(id);
    if (state === 'unknown') return null;
    const job = (await this.queue.getJob(id)) as Job<RunData> | undefined;
    return job ? { job, state } : null;
  }

  /**
   * Room for one more run: a free slot or a place in the line, counting only runs not cancelled.
   * BullMQ cannot fail a job no worker holds, so a cancelled run waits until a worker takes it and
   * drops it at once. Counted, it held its place in the line (and refused new runs 429) until the run
   * before it ended, minutes on a long video; a cancelled run a worker is dropping held a slot too.
   * The line with its cancelled runs is still bounded (`LINE_BOUND`), so sending and cancelling runs
   * while every slot is busy cannot grow it, nor the reads here, without end.
   */
  private async hasRoom(): Promise<boolean> {
    if (this.closing) return false;
    // The line is read before the slots, so a run taken in between is seen in both (and counted
    // once, as taken), never in neither. Read at once, a run taken meanwhile could be counted twice
    // and a run there was room for refused.
    const line = await this.runsIn(WAITING_STATES);
    const active = await this.runsIn(['active']);
    const taken = new Set(active.map((run) => run.id));
    const waiting = line.filter((run) => !taken.has(run.id));
    const { queueSize, concurrency } = this.options;
    if (waiting.length >= LINE_BOUND * (queueSize + concurrency)) return false;
    return notCancelled(waiting) < queueSize + Math.max(0, concurrency - notCancelled(active));
  }

  /** the runs waiting to be taken that will run (cancelled ones are dropped when taken) */
  private async waitingRuns(): Promise<number> {
    return notCancelled(await this.runsIn(WAITING_STATES));
  }

  private async runsIn(states: Array<'waiting' | 'delayed' | 'prioritized' | 'active'>): Promise<Array<Job<RunData>>> {
    return ((await this.queue.getJobs(states)) as Array<Job<RunData> | undefined>).filter((job): job is Job<RunData> => job !== undefined);
  }

  private view(job: Job<RunData>, state: string): RemoteStatus {
    const now = Date.now();
    let status: RemoteStatusName = state === 'active' ? 'IN_PROGRESS' : state === 'completed' ? 'COMPLETED' : 'IN_QUEUE';
    let record: FailureRecord | null = null;
    if (state === 'failed') {
      record = parseFailure(job.failedReason);
      status = record.status;
    } else if (job.data.cancelled && state !== 'completed') status = 'CANCELLED';
    const started = job.processedOn ?? job.finishedOn;
    const view: RemoteStatus = {
      id: job.id!,
      status,
      delayTime: (started ?? now) - job.timestamp,
      executionTime: job.processedOn ? (job.finishedOn ?? now) - job.processedOn : 0,
    };
    if (status === 'IN_PROGRESS' || status === 'IN_QUEUE') view.progress = typeof job.progress === 'number' ? job.progress : 0;
    if (status === 'COMPLETED' && job.returnvalue) view.output = job.returnvalue as unknown as RemoteOutput;
    if (record?.error) view.error = record.error;
    if (record?.errorCode) view.errorCode = record.errorCode;
    return view;
  }
}

function notCancelled(runs: ReadonlyArray<Job<RunData>>): number {
  return runs.filter((run) => !run.data.cancelled).length;
}

function failure(record: FailureRecord): UnrecoverableError {
  return new UnrecoverableError(JSON.stringify(record));
}

function parseFailure(reason: string | undefined): FailureRecord {
  try {
    const parsed = JSON.parse(reason ?? '') as FailureRecord;
    if (parsed && (parsed.status === 'FAILED' || parsed.status === 'CANCELLED' || parsed.status === 'TIMED_OUT')) return parsed;
  } catch {
    // a failure BullMQ itself recorded (e.g. stalled too many times)
  }
  return { status: 'FAILED', error: reason || 'Processing failed' };
}
