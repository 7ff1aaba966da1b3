import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { Queue } from 'bullmq';
import { JOBS_QUEUE } from '../../../../infrastructure/queue/queue-connection';
import { JobDispatcher } from '../../ports/job-dispatcher';

export interface ProcessJobMessage {
  jobId: string;
}

/** Queues a job for the workers; the BullMQ job id is the job's id, so dispatching twice queues once. */
@Injectable()
export class BullMqJobDispatcher extends JobDispatcher {
  constructor(@InjectQueue(JOBS_QUEUE) private readonly queue: Queue<ProcessJobMessage>) {
    super();
  }

  async dispatch(jobId: string): Promise<void> {
    // Retries cover infrastructure failures (database or storage briefly down): the handler is idempotent.
    await this.queue.add(
      'process',
      { jobId },
      { jobId, attempts: 5, backoff: { type: 'exponential', delay: 2000 }, removeOnComplete: { age: 24 * 3600 }, removeOnFail: { age: 7 * 24 * 3600 } },
    );
  }

  async requeueIfLost(jobId: string): Promise<boolean> {
    if (await this.queue.getJob(jobId)) return false;
    await this.dispatch(jobId);
    return true;
  }
}
