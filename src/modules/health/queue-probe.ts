import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { Queue } from 'bullmq';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { JOBS_QUEUE, jobsWorkerName } from '../../infrastructure/queue/queue-connection';

/** how long a count of the queue's workers answers /health: the public route asks on every request */
export const CONSUMER_COUNT_TTL_MS = 5000;

/** Asks the queue backend a real question (job counts), so a down Redis or Postgres shows. */
@Injectable()
export class QueueProbe {
  private readonly logger = new Logger(QueueProbe.name);
  private readonly workerSuffix: string;
  private counted?: { at: number; consumers: Promise<number | undefined> };
  private uncountableSaid = false;

  constructor(
    @InjectQueue(JOBS_QUEUE) private readonly queue: Queue,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.workerSuffix = `:w:${jobsWorkerName(config.env.QUEUE_NAMESPACE)}`;
  }

  async check(): Promise<string> {
    await this.queue.getJobCounts('waiting');
    return 'ok';
  }

  /**
   * How many workers of this deployment take jobs from the jobs queue, in any of its processes,
   * counted at most once every CONSUMER_COUNT_TTL_MS: BullMQ lists the connections its workers
   * named (Redis: CLIENT LIST; its Postgres backend: the sessions' application_name, across every
   * schema of the database, so the name carries the namespace). Undefined where the server will not
   * list its clients (a managed Redis), said once in the log.
   */
  consumers(): Promise<number | undefined> {
    const now = Date.now();
    if (!this.counted || now - this.counted.at >= CONSUMER_COUNT_TTL_MS) this.counted = { at: now, consumers: this.countConsumers() };
    return this.counted.consumers;
  }

  private async countConsumers(): Promise<number | undefined> {
    try {
      const clients = (await this.queue.getWorkers()) as Array<{ rawname?: string }>;
      // a server that cannot list clients answers one placeholder without a raw name
      if (clients.some((client) => client.rawname === undefined)) return this.uncountable('the queue server does not list its clients');
      return clients.filter((client) => client.rawname!.endsWith(this.workerSuffix)).length;
    } catch (error) {
      return this.uncountable((error as Error).message);
    }
  }

  private uncountable(why: string): undefined {
    if (!this.uncountableSaid) this.logger.warn(`cannot count the jobs queue's workers (${why}): /health does not check that a worker runs`);
    this.uncountableSaid = true;
    return undefined;
  }
}
