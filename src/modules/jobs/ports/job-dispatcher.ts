/** Hands a started job to whatever runs jobs (a queue). Idempotent per job id. */
export abstract class JobDispatcher {
  abstract dispatch(jobId: string): Promise<void>;
  /**
   * Queues the job again where the queue holds no message of it at all (a Redis that lost its data,
   * or evicted it), and says whether it did. A message in any state, finished ones included, is left.
   */
  abstract requeueIfLost(jobId: string): Promise<boolean>;
}
