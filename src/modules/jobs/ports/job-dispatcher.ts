/** Hands a started job to whatever runs jobs (a queue). Idempotent per job id. */
export abstract class JobDispatcher {
  abstract dispatch(jobId: string): Promise<void>;
}
