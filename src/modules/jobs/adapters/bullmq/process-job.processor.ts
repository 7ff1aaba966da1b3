import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { BeforeApplicationShutdown, Inject, Logger } from '@nestjs/common';
import { Job as QueueJob } from 'bullmq';
import { isDependencyOutage } from '../../../../common/errors/dependency-outage';
import { APP_CONFIG, AppConfig } from '../../../../config/app-config';
import { JOBS_QUEUE, jobsWorkerName } from '../../../../infrastructure/queue/queue-connection';
import { stalledJobDetection } from '../../../../infrastructure/queue/stalled-job-detection';
import { ProcessJobHandler } from '../../application/process-job.handler';
import { ProcessJobMessage } from './bullmq.job-dispatcher';
import { ChunkedJobHandler } from '../../application/chunked-job.handler';
import { ChunkOutcome, ChunkTask, JoinTask } from '../../ports/chunk-dispatcher';
import { CHUNK_MESSAGE, JOIN_MESSAGE } from './bullmq.chunk-dispatcher';
import { handingBack } from './hand-back';
import { untilWritten, UNTIL_WRITTEN_DELAYS_MS } from '../../../../common/until-written';

type JobsQueueMessage = QueueJob<ProcessJobMessage> | QueueJob<ChunkTask> | QueueJob<JoinTask>;

/**
 * The worker side of the jobs queue: each message runs ProcessJobHandler. Delivery is at least once
 * (a job whose worker died is re-run after its lock expires), which the handler is built for.
 */
@Processor(JOBS_QUEUE)
export class ProcessJobProcessor extends WorkerHost implements BeforeApplicationShutdown {
  private readonly logger = new Logger(ProcessJobProcessor.name);
  /** the waits between tries of a job's failure (a test shortens them) */
  endRetryDelaysMs: readonly number[] = UNTIL_WRITTEN_DELAYS_MS;

  constructor(
    private readonly handler: ProcessJobHandler,
    private readonly chunked: ChunkedJobHandler,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  /**
   * Runs before the database, queue and engine close: the worker stops taking jobs and waits for its
   * running ones (finished within the grace period, or handed back to the queue).
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.handler.beginShutdown(this.config.env.WORKER_SHUTDOWN_GRACE_MS);
    this.chunked.beginShutdown(this.config.env.WORKER_SHUTDOWN_GRACE_MS);
    await this.worker.close();
  }

  /**
   * `process` runs a job (or splits a long one); a long job's `chunk` and `join` messages come from its
   * flow. A job or chunk handed back at shutdown returns to the queue without spending an attempt.
   */
  async process(message: JobsQueueMessage, token?: string): Promise<ChunkOutcome | null | void> {
    return handingBack(message, token, () => this.run(message));
  }

  private async run(message: JobsQueueMessage): Promise<ChunkOutcome | null | void> {
    if (message.name === CHUNK_MESSAGE) return this.chunked.runChunk((message as QueueJob<ChunkTask>).data);
    if (message.name === JOIN_MESSAGE) {
      const outcomes = Object.values(await message.getChildrenValues<ChunkOutcome | null>());
      return this.chunked.join((message as QueueJob<JoinTask>).data, outcomes);
    }
    await this.handler.handle((message as QueueJob<ProcessJobMessage>).data.jobId);
  }

  /**
   * BullMQ gave up on a message (it stalled too often, or the handler threw): the job must not stay
   * open. Its failure is written until the database takes it (untilWritten): the same outage that
   * failed the message would otherwise fail this write too.
   */
  @OnWorkerEvent('failed')
  async onFailed(message: JobsQueueMessage | undefined, error: Error): Promise<void> {
    if (!message || !(await isFinal(message, error))) return;
    if (message.name === CHUNK_MESSAGE) {
      const chunk = (message as QueueJob<ChunkTask>).data;
      await this.endJob(chunk.jobId, () => this.chunked.chunkGaveUp(chunk, error));
      return;
    }
    if (message.name === JOIN_MESSAGE) {
      const join = (message as QueueJob<JoinTask>).data;
      await this.endJob(join.jobId, () => this.chunked.joinGaveUp(join, error));
      return;
    }
    const { jobId } = (message as QueueJob<ProcessJobMessage>).data;
    this.logger.error(`queue gave up on job ${jobId}: ${error.message}`);
    // the job's error is the client's to read: a driver's words name the service's own addresses
    const reason = isDependencyOutage(error) ? 'a service it needs (its database, queue or storage) could not be reached' : error.message;
    await this.endJob(jobId, () => this.handler.abandon(jobId, reason));
  }

  private async endJob(jobId: string, end: () => Promise<unknown>): Promise<void> {
    const ended = await untilWritten(end, (error) => this.logger.warn(`could not fail job ${jobId} yet (${error instanceof Error ? error.message : String(error)}); trying again`), this.endRetryDelaysMs);
    if (!ended) this.logger.error(`gave up failing job ${jobId}: it stays open`);
  }
}

/**
 * Whether the queue is done with a message that failed: it left it failed, not waiting for another
 * attempt. A message that stalled more than maxStalledCount times is failed at once with attempts
 * left (an UnrecoverableError, attemptsMade 1 of 5), and counting attempts took it for one to be
 * retried: its job stayed processing for good, its credits held. Where the queue cannot be asked,
 * the attempts decide.
 */
async function isFinal(message: JobsQueueMessage, error: Error): Promise<boolean> {
  const state = await message.getState().catch(() => undefined);
  if (state !== undefined) return state === 'failed';
  return error.name === 'UnrecoverableError' || message.attemptsMade >= (message.opts.attempts ?? 1);
}

/** Worker options come from validated configuration, applied when the module is built. */
export function configureProcessJobProcessor(config: AppConfig): void {
  Processor(JOBS_QUEUE, {
    name: jobsWorkerName(config.env.QUEUE_NAMESPACE),
    concurrency: config.env.WORKER_CONCURRENCY,
    ...stalledJobDetection(config, 2),
    maxStalledCount: 2,
  })(ProcessJobProcessor);
}
