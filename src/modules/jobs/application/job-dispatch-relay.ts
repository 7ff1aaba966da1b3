import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../../config/app-config';
import { Clock } from '../../../common/clock';
import { oneAtATime } from '../../../common/one-at-a-time';
import { RepeatedWarning } from '../../../common/logging/repeated-warning';
import { QUEUE_HANDOFF_TIMEOUT_MS, withTimeout } from '../../../common/with-timeout';
import { JobDispatcher } from '../ports/job-dispatcher';
import { JobRepository } from '../ports/job.repository';

/** pending jobs checked against the queue a page at a time */
const LOST_CHECK_PAGE = 200;

/**
 * The relay of the transactional hand-off: a job is marked pending in a committed transaction, then
 * handed to the queue. If the process dies in between, the periodic sweep finds the pending job
 * without `dispatched_at` and hands it over; the queue's job id (the job's id) makes a double hand-off
 * harmless.
 */
@Injectable()
export class JobDispatchRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(JobDispatchRelay.name);
  /** hand-offs that fail (the queue away) warn once every 30 s, whether a new job's or the sweep's */
  private readonly handOffFailures = new RepeatedWarning(this.logger);
  private timer?: NodeJS.Timeout;
  private lostTimer?: NodeJS.Timeout;

  constructor(
    private readonly jobs: JobRepository,
    private readonly dispatcher: JobDispatcher,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(
      () =>
        void this.sweep().catch((error: Error) => this.handOffFailures.warn(`relay sweep failed: ${error.message}`)),
      this.config.env.JOB_RELAY_INTERVAL_MS,
    );
    this.timer.unref();
    if (!this.dispatcher.losesMessages) return;
    this.lostTimer = setInterval(
      () => void this.requeueLost().catch((error: Error) => this.handOffFailures.warn(`the check for jobs the queue lost failed: ${error.message}`)),
      this.config.env.JOB_REQUEUE_LOST_INTERVAL_MS,
    );
    this.lostTimer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
    clearInterval(this.lostTimer);
  }

  /** Hands one committed job to the queue; a failure is left for the sweep. Says whether it was handed over. */
  async relay(jobId: string): Promise<boolean> {
    try {
      await withTimeout(this.dispatcher.dispatch(jobId), QUEUE_HANDOFF_TIMEOUT_MS, 'the queue');
      await this.jobs.markDispatched(jobId, this.clock.now());
      return true;
    } catch (error) {
      this.handOffFailures.warn(`job ${jobId} committed but not queued yet (${(error as Error).message}); the relay will retry`);
      return false;
    }
  }

  /**
   * Hands over the jobs committed but not queued, and says how many. It stops at the first that fails
   * (the queue is down: the next sweep tries again, rather than each job waiting out its timeout), and
   * a call while a sweep runs joins it.
   */
  readonly sweep = oneAtATime(async (): Promise<number> => {
    const stale = await this.jobs.undispatched(new Date(this.clock.now().getTime() - this.config.env.JOB_RELAY_INTERVAL_MS), 100);
    let handed = 0;
    for (const id of stale) {
      if (!(await this.relay(id))) return handed;
      handed += 1;
    }
    this.handOffFailures.recovered('the relay hands jobs to the queue again');
    return handed;
  });

  /**
   * Queues again the pending jobs queued before the last check whose message the queue no longer
   * holds at all (a Redis restarted without its data: they waited for good), a page at a time, and
   * says how many. A call while a check runs joins it. Scheduled only for a queue that can lose them.
   */
  readonly requeueLost = oneAtATime(async (): Promise<number> => {
    const before = new Date(this.clock.now().getTime() - this.config.env.JOB_REQUEUE_LOST_INTERVAL_MS);
    let requeued = 0;
    for (let page = await this.jobs.waitingInQueue(before, LOST_CHECK_PAGE); page.length > 0; page = await this.jobs.waitingInQueue(before, LOST_CHECK_PAGE, page[page.length - 1])) {
      requeued += (await withTimeout(this.dispatcher.requeueLost(page), QUEUE_HANDOFF_TIMEOUT_MS, 'the queue')).length;
    }
    if (requeued > 0) this.logger.warn(`${requeued} pending job(s) were no longer in the queue (did Redis lose its data?): queued again`);
    return requeued;
  });
}
