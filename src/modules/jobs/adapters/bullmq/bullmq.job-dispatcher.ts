import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../../../config/app-config';
import { Queue } from 'bullmq';
import { JOBS_QUEUE, queueBackendOf } from '../../../../infrastructure/queue/queue-connection';
import { JobDispatcher } from '../../ports/job-dispatcher';

export interface ProcessJobMessage {
  jobId: string;
}

/** Queues a job for the workers; the BullMQ job id is the job's id, so dispatching twice queues once. */
@Injectable()
export class BullMqJobDispatcher extends JobDispatcher {
  readonly losesMessages: boolean;

  constructor(@InjectQueue(JOBS_QUEUE) private readonly queue: Queue<ProcessJobMessage>, @Inject(APP_CONFIG) config: AppConfig) {
    super();
    this.losesMessages = queueBackendOf(config) === 'redis';
  }

  async dispatch(jobId: string): Promise<void> {
    // Retries cover infrastructure failures (database or storage briefly down): the handler is idempotent.
    await this.queue.add(
      'process',
      { jobId },
      { jobId, attempts: 5, backoff: { type: 'exponential', delay: 2000 }, removeOnComplete: { age: 24 * 3600 }, removeOnFail: { age: 7 * 24 * 3600 } },
    );
  }

  /** the queue's reads of a page go out together (one round trip on Redis) */
  async requeueLost(jobIds: readonly string[]): Promise<string[]> {
    const held = await Promise.all(jobIds.map((jobId) => this.queue.getJob(jobId)));
    const lost = jobIds.filter((_, index) => !held[index]);
    for (const jobId of lost) await this.dispatch(jobId);
    return lost;
  }
}
