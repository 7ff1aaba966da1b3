import { HandedBack } from '../../application/handed-back';
import { JobDispatcher } from '../../ports/job-dispatcher';

/**
 * The queue hand-off in memory: idempotent per job id, as BullMQ's job id makes it; `failNext`
 * simulates a queue that is down. With a consumer (`consumeWith`, the all-in-memory app gives it
 * ProcessJobHandler) each job queued is handed to it once, off the caller's path, as a worker would take it.
 */
export class InMemoryJobDispatcher extends JobDispatcher {
  readonly dispatched: string[] = [];
  private failures = 0;
  private consumer?: (jobId: string) => Promise<void>;
  private readonly running = new Set<Promise<void>>();
  private readonly tally = { waiting: 0, active: 0, completed: 0, failed: 0 };
  private closing = false;
  /** jobs handed back, until they are handed again */
  private readonly delayed = new Set<NodeJS.Timeout>();

  /** The queue's depth by state, as BullMQ's getJobCounts answers it (metrics, health). */
  counts(): Record<'waiting' | 'active' | 'completed' | 'failed', number> {
    return { ...this.tally };
  }

  failNext(times = 1): void {
    this.failures += times;
  }

  consumeWith(consumer: (jobId: string) => Promise<void>): void {
    this.consumer = consumer;
  }

  /** Waits for the jobs handed to the consumer so far (the app waits for them before it closes); those handed back are not handed again. */
  async drain(): Promise<void> {
    this.closing = true;
    for (const timer of this.delayed) clearTimeout(timer);
    this.delayed.clear();
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** the queue loses the job's message, as a Redis that lost its data does */
  lose(jobId: string): void {
    const index = this.dispatched.indexOf(jobId);
    if (index >= 0) this.dispatched.splice(index, 1);
  }

  /** as a Redis queue, which can lose them (`lose`) */
  readonly losesMessages = true;

  async requeueLost(jobIds: readonly string[]): Promise<string[]> {
    const lost = jobIds.filter((jobId) => !this.dispatched.includes(jobId));
    for (const jobId of lost) await this.dispatch(jobId);
    return lost;
  }

  async dispatch(jobId: string): Promise<void> {
    if (this.failures > 0) {
      this.failures -= 1;
      throw new Error('the queue is down');
    }
    if (this.dispatched.includes(jobId)) return;
    this.dispatched.push(jobId);
    this.deliver(jobId, 0);
  }

  /** hands the job to the consumer after `afterMs`; one it hands back (HandedBack) comes again after the wait it asks for */
  private deliver(jobId: string, afterMs: number): void {
    const consumer = this.consumer;
    if (!consumer) return;
    if (afterMs > 0) {
      const timer = setTimeout(() => {
        this.delayed.delete(timer);
        this.deliver(jobId, 0);
      }, afterMs);
      this.delayed.add(timer);
      return;
    }
    this.tally.waiting += 1;
    const run: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => {
        this.tally.waiting -= 1;
        this.tally.active += 1;
        return consumer(jobId);
      })
      .then(
        () => void (this.tally.completed += 1),
        (error: unknown) => (error instanceof HandedBack && !this.closing ? this.deliver(jobId, Math.max(1, error.afterMs)) : void (this.tally.failed += 1)),
      )
      .finally(() => {
        this.tally.active -= 1;
        this.running.delete(run);
      });
    this.running.add(run);
  }
}
