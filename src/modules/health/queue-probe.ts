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

  /**
   * How many workers take jobs from the jobs queue, in every process of the deployment: BullMQ names
   * each worker's connection, and lists them (Redis: CLIENT LIST; its Postgres backend: the
   * sessions' application_name). Where the server cannot list its clients, BullMQ answers one.
   */
  consumers(): Promise<number> {
    return this.queue.getWorkersCount();
  }
}
