import { JobDispatcher } from '../../ports/job-dispatcher';

/** The queue hand-off in memory: idempotent per job id, as BullMQ's job id makes it; `failNext` simulates a queue that is down. */
export class InMemoryJobDispatcher extends JobDispatcher {
  readonly dispatched: string[] = [];
  private failures = 0;

  failNext(times = 1): void {
    this.failures += times;
  }

  async dispatch(jobId: string): Promise<void> {
    if (this.failures > 0) {
      this.failures -= 1;
      throw new Error('the queue is down');
    }
    if (!this.dispatched.includes(jobId)) this.dispatched.push(jobId);
  }
}
