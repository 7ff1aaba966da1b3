import { Logger } from '@nestjs/common';
import { REMOTE_URL_MARGIN_SECONDS } from '../../../../config/app-config';
import { ObjectStorage } from '../../../storage/ports/object-storage';
import { HandingOver, WorkerFailure, WorkerGateway, WorkerOutcome, WorkerTask } from '../../ports/worker-gateway';
import { RemoteRun, RemoteRunRegistry } from '../../ports/remote-run-registry';
import { CallbackSigner } from './callback-signer';
import { remoteTaskInput } from './remote-task';
import { isJobFailureCode, parseRemoteOutput, RemoteStatus, RunRequest } from '../../../../common/worker-protocol/runpod-protocol';
import { abortableSleep, WorkerApiClient, WorkerCallFailed } from './worker-api.client';
import { WorkerCallbackHub } from './worker-callback-hub';
import { WorkerEndpoints } from './worker-endpoints';
import { Wakeup } from './wakeup';
import { withoutUrlSecrets } from '../../../../common/logging/redact';

export interface RemoteGatewayOptions {
  pollIntervalMs: number;
  jobTimeoutMs: number;
  /** base of the callback URL given to workers (the API's PUBLIC_BASE_URL) */
  publicBaseUrl: string;
  /** how long the worker that took a job may not answer (it may be restarting) before the job fails */
  unreachableGraceMs: number;
  /** POST /retry of a run that FAILED with a code a new attempt may cure, at most this many times */
  runRetries: number;
}

/** Failures that another attempt on the same worker may cure; input and settings problems never are. */
const RETRYABLE_FAILURES: readonly string[] = ['worker_failed', 'output_failed'];

/** Status polls that failed (after their retries) in a row before the worker may count as gone (and the grace has passed). */
const MAX_FAILED_POLLS = 3;
/** Failure messages from workers are shown on the job; keep them short. */
const MAX_MESSAGE_LENGTH = 500;

const canceled = (): WorkerFailure => new WorkerFailure('canceled', 'processing was canceled');
/** A stop for the process's shutdown leaves the run to the task's next attempt; any other stop cancels it. */
const handingOver = (signal?: AbortSignal): boolean => signal?.aborted === true && signal.reason instanceof HandingOver;
/** A remembered run in these states is followed by the task's next attempt; in any other it is replaced. */
const FOLLOWABLE: readonly string[] = ['IN_QUEUE', 'IN_PROGRESS', 'COMPLETED'];

/**
 * Runs jobs on RunPod-protocol workers over HTTP. A job is POSTed to /run on the first endpoint that
 * accepts it (healthy endpoints first, failing over on errors), then followed on that same endpoint
 * through GET /status polls, cut short by the worker's authenticated callback when it lands here.
 * Past WORKER_JOB_TIMEOUT_SECONDS, or when the job is canceled, the run is canceled on the worker
 * (POST /cancel). A run that FAILED for a reason another attempt may cure is retried there (POST
 * /retry, WORKER_RUN_RETRIES times). A worker that stops answering is given WORKER_UNREACHABLE_GRACE_SECONDS
 * to come back (a worker server with a durable queue keeps its jobs across a restart). Each run is
 * remembered by task (RemoteRunRegistry) until it ends: the task's next attempt, after its process
 * died or was shut down, follows that run while it is queued, running or done (or its worker is away
 * for a moment), and submits anew only when it is not; a job that ended meanwhile has it canceled.
 */
export class RemoteHttpWorkerGateway extends WorkerGateway {
  private readonly logger = new Logger(RemoteHttpWorkerGateway.name);

  constructor(
    private readonly api: WorkerApiClient,
    private readonly endpoints: WorkerEndpoints,
    private readonly storage: ObjectStorage,
    private readonly signer: CallbackSigner,
    private readonly hub: WorkerCallbackHub,
    private readonly runs: RemoteRunRegistry,
    private readonly options: RemoteGatewayOptions,
  ) {
    super();
  }

  async process(task: WorkerTask, onProgress: (percent: number) => void, signal?: AbortSignal): Promise<WorkerOutcome> {
    if (signal?.aborted) throw canceled();
    const run = (await this.earlierRun(task, signal)) ?? (await this.submitNew(task, signal));
    try {
      return await this.follow(task, run, onProgress, signal);
    } finally {
      if (!handingOver(signal)) await this.runs.forget(task.outputKey, run.id).catch((error: Error) => this.logger.warn(`run ${run.id} of job ${task.jobId} not forgotten: ${error.message}`));
    }
  }

  /** 'ok' when at least one worker answers /health; otherwise how many do not (details in the log). */
  async check(): Promise<string> {
    const answers = await Promise.all(
      this.endpoints.urls.map((url) =>
        this.api.health(url).then(
          () => (this.endpoints.markHealthy(url), true),
          (error: Error) => {
            this.endpoints.markFailed(url, error.message);
            this.logger.warn(`worker ${url} health: ${error.message}`);
            return false;
          },
        ),
      ),
    );
    const down = answers.filter((healthy) => !healthy).length;
    return down < answers.length ? 'ok' : `none of the ${answers.length} remote workers answers /health`;
  }

  private async submitNew(task: WorkerTask, signal?: AbortSignal): Promise<RemoteRun> {
    const deadline = new Date(Date.now() + this.options.jobTimeoutMs);
    const ttlSeconds = Math.ceil(this.options.jobTimeoutMs / 1000) + REMOTE_URL_MARGIN_SECONDS;
    const request: RunRequest = {
      input: await remoteTaskInput(task, this.storage, ttlSeconds),
      webhook: this.signer.url(this.options.publicBaseUrl, task.jobId, ttlSeconds),
      policy: { executionTimeout: this.options.jobTimeoutMs, ttl: ttlSeconds * 1000 },
    };
    const run = { ...(await this.submit(request, deadline.getTime(), signal)), deadline };
    this.logger.log(`job ${task.jobId} runs as ${run.id} on ${run.endpoint}`);
    // not remembered, the run is still followed: only a later attempt would submit another
    await this.runs.remember(task.outputKey, run, new Date()).catch((error: Error) => this.logger.warn(`run ${run.id} of job ${task.jobId} not remembered: ${error.message}`));
    return run;
  }

  /**
   * The run an earlier attempt at this task left on a worker, when it is still queued, running or
   * done there, or its worker does not answer now (following it gives the worker its
   * WORKER_UNREACHABLE_GRACE_SECONDS, as for any run: a second run raced the first once it was back).
   * A run past its deadline is canceled, and the task is submitted anew, as it is when the earlier run
   * failed, its worker no longer knows it, or its endpoint is no longer one of WORKER_URLS.
   */
  private async earlierRun(task: WorkerTask, signal?: AbortSignal): Promise<RemoteRun | null> {
    const earlier = await this.remembered(task);
    if (!earlier) return null;
    if (earlier.deadline.getTime() <= Date.now()) {
      await this.cancelQuietly(earlier);
      return null;
    }
    const status = await this.poll(earlier, signal);
    if (status === null || (status !== 'gone' && FOLLOWABLE.includes(status.status))) {
      this.logger.log(`job ${task.jobId} follows its earlier run ${earlier.id} on ${earlier.endpoint} (${status === null ? 'its worker does not answer now' : status.status})`);
      return earlier;
    }
    return null;
  }

  /** the run remembered for the task, on an endpoint still configured */
  private async remembered(task: WorkerTask): Promise<RemoteRun | null> {
    const earlier = await this.runs.find(task.outputKey).catch((error: Error) => {
      this.logger.warn(`earlier runs of job ${task.jobId} could not be looked up: ${error.message}`);
      return null;
    });
    return earlier && this.endpoints.urls.includes(earlier.endpoint) ? earlier : null;
  }

  /**
   * A task that will not run (its job ended while no process followed its run: canceled while
   * handed over): the run an earlier attempt left going is canceled on its worker and forgotten.
   */
  override async giveUp(task: Pick<WorkerTask, 'jobId' | 'outputKey'>): Promise<void> {
    const earlier = await this.runs.find(task.outputKey).catch(() => null);
    if (!earlier) return;
    if (this.endpoints.urls.includes(earlier.endpoint)) await this.cancelQuietly(earlier);
    await this.runs.forget(task.outputKey, earlier.id).catch((error: Error) => this.logger.warn(`run ${earlier.id} of job ${task.jobId} not forgotten: ${error.message}`));
    this.logger.log(`job ${task.jobId} ended while handed over: its run ${earlier.id} was canceled`);
  }

  /**
   * Tries the endpoints in turn (healthy ones first). When at least one of them is only busy (429),
   * waits what it asked (Retry-After, else one poll interval) and goes round again until the job's
   * deadline; when every one failed otherwise, the job ends with worker_failed.
   */
  private async submit(request: RunRequest, deadline: number, signal?: AbortSignal): Promise<Omit<RemoteRun, 'deadline'>> {
    for (;;) {
      let busyWaitMs: number | null = null;
      for (const endpoint of this.endpoints.candidates()) {
        if (signal?.aborted) throw canceled();
        try {
          const accepted = await this.api.run(endpoint, request, signal);
          this.endpoints.markHealthy(endpoint);
          return { endpoint, id: accepted.id };
        } catch (error) {
          if (!(error instanceof WorkerCallFailed)) throw error;
          if (signal?.aborted) throw canceled();
          if (error.status === 429) {
            const asked = error.retryAfterSeconds !== null ? error.retryAfterSeconds * 1000 : this.options.pollIntervalMs;
            busyWaitMs = Math.min(busyWaitMs ?? Infinity, asked);
          } else {
            this.endpoints.markFailed(endpoint, error.message);
          }
          this.logger.warn(`worker ${endpoint} did not take job ${request.input.job_id}: ${error.message}`);
        }
      }
      if (busyWaitMs === null) throw new WorkerFailure('worker_failed', 'No remote worker accepted the job');
      if (Date.now() + busyWaitMs >= deadline) throw new WorkerFailure('worker_timeout', 'Every remote worker stayed busy until the job timed out');
      await abortableSleep(busyWaitMs, signal);
    }
  }

  /**
   * Polls the endpoint that accepted the run until it ends, is canceled, or outlives its deadline. A
   * stop for the process's shutdown leaves the run going, for the task's next attempt to follow.
   */
  private async follow(task: WorkerTask, run: RemoteRun, onProgress: (percent: number) => void, signal?: AbortSignal): Promise<WorkerOutcome> {
    const deadline = run.deadline.getTime();
    const wakeup = new Wakeup();
    let pushed: RemoteStatus | null = null;
    const unsubscribe = this.hub.subscribe(task.jobId, (status) => {
      if (status.id !== run.id) return;
      pushed = status;
      wakeup.fire();
    });
    const wake = (): void => wakeup.fire();
    signal?.addEventListener('abort', wake, { once: true });
    const deadlineTimer = setTimeout(wake, Math.max(0, deadline - Date.now()));
    let failedPolls = 0;
    let lastAnswerAt = performance.now();
    let retriesLeft = this.options.runRetries;
    try {
      for (;;) {
        if (signal?.aborted) {
          if (!handingOver(signal)) await this.cancelQuietly(run);
          throw canceled();
        }
        if (Date.now() >= deadline) {
          await this.cancelQuietly(run);
          throw new WorkerFailure('worker_timeout', `Processing took longer than ${Math.round(this.options.jobTimeoutMs / 1000)} s`);
        }
        // A callback is trusted when it says COMPLETED; any other news only wakes the loop to poll, since a
        // FAILED callback may be older than the /retry that followed it.
        const news = pushed as RemoteStatus | null; // set by the callback subscription
        const status: RemoteStatus | 'gone' | null = news?.status === 'COMPLETED' ? news : await this.poll(run, signal);
        pushed = null;
        if (status === 'gone') throw new WorkerFailure('worker_failed', 'The remote worker lost the job');
        if (status === null) {
          failedPolls += 1;
          const silentFor = performance.now() - lastAnswerAt;
          if (failedPolls >= MAX_FAILED_POLLS && silentFor >= this.options.unreachableGraceMs && !signal?.aborted) throw new WorkerFailure('worker_failed', 'The remote worker stopped answering');
        } else {
          failedPolls = 0;
          lastAnswerAt = performance.now();
          if (retriesLeft > 0 && status.status === 'FAILED' && RETRYABLE_FAILURES.includes(status.errorCode ?? 'worker_failed') && (await this.retried(run, status, signal))) {
            retriesLeft -= 1;
          } else {
            const outcome = await this.settle(task, status, onProgress);
            if (outcome) return outcome;
          }
        }
        await wakeup.sleep(Math.min(this.options.pollIntervalMs, deadline - Date.now()));
      }
    } finally {
      unsubscribe();
      signal?.removeEventListener('abort', wake);
      clearTimeout(deadlineTimer);
    }
  }

  /** The run's status; null when the worker could not be asked (the endpoint is marked as failing). */
  private async poll(run: RemoteRun, signal?: AbortSignal): Promise<RemoteStatus | 'gone' | null> {
    try {
      const status = await this.api.status(run.endpoint, run.id, signal);
      this.endpoints.markHealthy(run.endpoint);
      return status;
    } catch (error) {
      if (!(error instanceof WorkerCallFailed)) throw error;
      if (!signal?.aborted) {
        this.endpoints.markFailed(run.endpoint, error.message);
        this.logger.warn(`worker ${run.endpoint} status of ${run.id}: ${error.message}`);
      }
      return null;
    }
  }

  /** The outcome of a finished run (or a WorkerFailure thrown); null while it is queued or running. */
  private async settle(task: WorkerTask, status: RemoteStatus, onProgress: (percent: number) => void): Promise<WorkerOutcome | null> {
    switch (status.status) {
      case 'IN_QUEUE':
      case 'IN_PROGRESS':
        if (typeof status.progress === 'number' && Number.isFinite(status.progress)) onProgress(Math.min(100, Math.max(0, status.progress)));
        return null;
      case 'COMPLETED':
        return this.completed(task, status);
      case 'FAILED': {
        const code = isJobFailureCode(status.errorCode) ? status.errorCode : 'worker_failed';
        // shown to the client and sent in its webhook: a worker's trace may name the run's signed URLs
        throw new WorkerFailure(code, typeof status.error === 'string' && status.error ? withoutUrlSecrets(shorten(status.error)) : 'The remote worker failed');
      }
      case 'TIMED_OUT':
        throw new WorkerFailure('worker_timeout', 'The remote worker timed the job out');
      case 'CANCELLED':
        // not asked by this job (follow throws `canceled` for its own cancel first): another API
        // process gave the run up, or the worker dropped it; the job or chunk may well run again
        throw new WorkerFailure('worker_failed', 'The remote worker cancelled the run');
    }
  }

  private async completed(task: WorkerTask, status: RemoteStatus): Promise<WorkerOutcome> {
    const output = parseRemoteOutput(status.output);
    if (!output) throw new WorkerFailure('worker_failed', 'The remote worker reported no usable output');
    const stored = await this.storage.stat(task.outputKey);
    if (!stored) throw new WorkerFailure('output_failed', 'The remote worker finished but its output was not stored');
    if (stored.size === 0) throw new WorkerFailure('output_failed', 'The remote worker finished but stored an empty output');
    return { durationSeconds: output.duration_seconds, frames: output.frames, notes: output.notes.map(withoutUrlSecrets) };
  }

  /** Asks the worker to run a failed run again; false when it would not (the failure then stands). */
  private async retried(run: RemoteRun, status: RemoteStatus, signal?: AbortSignal): Promise<boolean> {
    try {
      await this.api.retry(run.endpoint, run.id, signal);
      this.logger.warn(`run ${run.id} on ${run.endpoint} failed (${status.errorCode ?? 'no code'}: ${shorten(status.error ?? '')}); retried there`);
      return true;
    } catch (error) {
      if (!(error instanceof WorkerCallFailed)) throw error;
      this.logger.warn(`worker ${run.endpoint} retry of ${run.id}: ${error.message}`);
      return false;
    }
  }

  private async cancelQuietly(run: RemoteRun): Promise<void> {
    await this.api.cancel(run.endpoint, run.id).catch((error: Error) => this.logger.warn(`worker ${run.endpoint} cancel of ${run.id}: ${error.message}`));
  }
}

function shorten(message: string): string {
  return message.length > MAX_MESSAGE_LENGTH ? `${message.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : message;
}
