import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { Queue } from 'bullmq';
import { JOBS_QUEUE } from '../../infrastructure/queue/queue-connection';

/** Asks the queue backend a real question (job counts), so a down Redis or Postgres shows. */
@Injectable()
export class QueueProbe {
  constructor(@InjectQueue(JOBS_QUEUE) private readonly queue: Queue) {}

  async check(): Promise<string> {
    await this.queue.getJobCounts('waiting');
    return 'ok';
  }
}
