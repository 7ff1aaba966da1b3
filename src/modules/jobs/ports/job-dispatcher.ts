/** Hands a started job to whatever runs jobs (a queue). Idempotent per job id. */
export abstract class JobDispatcher {
  abstract dispatch(jobId: string): Promise<void>;
  /** Whether the queue can lose messages the database still counts on (a Redis restarted without its data); a queue kept in the database cannot. */
  abstract readonly losesMessages: boolean;
  /**
   * Of `jobIds`, queues again those whose message the queue no longer holds at all, and answers
   * them. A message in any state, finished ones included, is left.
   */
  abstract requeueLost(jobIds: readonly string[]): Promise<string[]>;
}
