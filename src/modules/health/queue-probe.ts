import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { Queue } from 'bullmq';
import { oneAtATime } from '../../common/one-at-a-time';
import { withTimeout } from '../../common/with-timeout';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { JOBS_QUEUE, jobsWorkerName } from '../../infrastructure/queue/queue-connection';

/** how long a count of the queue's workers answers /health: the public route asks on every request */
export const CONSUMER_COUNT_TTL_MS = 5000;
/** a count taking longer is given up (its query still holds a connection of the queue's pool) */
const CONSUMER_COUNT_TIMEOUT_MS = 2000;
/** the log says why a count failed once per reason, for this many reasons at most */
const REASONS_SAID_AT_MOST = 20;

/** Asks the queue backend a real question (job counts), so a down Redis or Postgres shows. */
@Injectable()
export class QueueProbe {
  private readonly logger = new Logger(QueueProbe.name);
  private readonly workerSuffix: string;
  /** the last count and when it ended */
  private counted?: { at: number; consumers: number | undefined };
  /** a count, one at a time: requests while it runs join it */
  private readonly count = oneAtATime(async () => {
    const consumers = await this.countConsumers();
    this.counted = { at: Date.now(), consumers };
    return consumers;
  });
  private readonly reasonsSaid = new Set<string>();

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
   * counted at most once every CONSUMER_COUNT_TTL_MS and one count at a time: BullMQ lists the
   * connections its workers named (Redis: CLIENT LIST; its Postgres backend: the sessions'
   * application_name, across every schema of the database, so the name carries the namespace).
   * Workers of a release before the names (unnamed) count too, so that a rolling upgrade does not
   * mark the deployment degraded until its last worker is replaced. Undefined where the count
   * cannot be had (a managed Redis that will not list its clients, a queue away), said in the log
   * once per reason.
   */
  consumers(): Promise<number | undefined> {
    if (this.counted && Date.now() - this.counted.at < CONSUMER_COUNT_TTL_MS) return Promise.resolve(this.counted.consumers);
    return this.count();
  }

  private async countConsumers(): Promise<number | undefined> {
    try {
      const clients = (await withTimeout(this.queue.getWorkers(), CONSUMER_COUNT_TIMEOUT_MS, 'the queue')) as Array<{ rawname?: string }>;
      // a server that cannot list clients answers one placeholder without a raw name
      if (clients.some((client) => client.rawname === undefined)) return this.uncountable('the queue server does not list its clients');
      return clients.filter(({ rawname }) => rawname!.endsWith(this.workerSuffix) || !rawname!.includes(':w:')).length;
    } catch (error) {
      return this.uncountable((error as Error).message);
    }
  }

  private uncountable(why: string): undefined {
    if (!this.reasonsSaid.has(why) && this.reasonsSaid.size < REASONS_SAID_AT_MOST) {
      this.logger.warn(`cannot count the jobs queue's workers (${why}): /health does not check that a worker runs`);
      this.reasonsSaid.add(why);
    }
    return undefined;
  }
}
