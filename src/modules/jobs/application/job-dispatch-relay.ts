import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../../config/app-config';
import { Clock } from '../../../common/clock';
import { QUEUE_HANDOFF_TIMEOUT_MS, withTimeout } from '../../../common/with-timeout';
import { JobDispatcher } from '../ports/job-dispatcher';
import { JobRepository } from '../ports/job.repository';

/**
 * The relay of the transactional hand-off: a job is marked pending in a committed transaction, then
 * handed to the queue. If the process dies in between, the periodic sweep finds the pending job
 * without `dispatched_at` and hands it over; the queue's job id (the job's id) makes a double hand-off
 * harmless.
 */
@Injectable()
export class JobDispatchRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(JobDispatchRelay.name);
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly jobs: JobRepository,
    private readonly dispatcher: JobDispatcher,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep().catch((error: Error) => this.logger.warn(`relay sweep failed: ${error.message}`)), this.config.env.JOB_RELAY_INTERVAL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Hands one committed job to the queue; a failure is left for the sweep. */
  async relay(jobId: string): Promise<void> {
    try {
      await withTimeout(this.dispatcher.dispatch(jobId), QUEUE_HANDOFF_TIMEOUT_MS, 'the queue');
      await this.jobs.markDispatched(jobId);
    } catch (error) {
      this.logger.warn(`job ${jobId} committed but not queued yet (${(error as Error).message}); the relay will retry`);
    }
  }

  async sweep(): Promise<number> {
    const stale = await this.jobs.undispatched(new Date(this.clock.now().getTime() - this.config.env.JOB_RELAY_INTERVAL_MS), 100);
    for (const id of stale) await this.relay(id);
    return stale.length;
  }
}
