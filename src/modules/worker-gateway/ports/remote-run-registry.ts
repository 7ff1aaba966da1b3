/** A run a remote worker accepted for a task: the endpoint that took it, its id there, and its deadline. */
export interface RemoteRun {
  endpoint: string;
  id: string;
  /** past this the run is given up (canceled on the worker); it counts from the task's first submission */
  deadline: Date;
}

/**
 * The remote runs in flight by task (the task's output key, the same on every attempt), shared by all
 * processes: a task run again after its process died or handed it back follows the run a worker
 * already has instead of submitting another, which did the same work twice and raced it to the output.
 */
export abstract class RemoteRunRegistry {
  abstract find(taskKey: string): Promise<RemoteRun | null>;
  /** records the task's run in place of an earlier one, and forgets every run whose deadline is before `now` */
  abstract remember(taskKey: string, run: RemoteRun, now: Date): Promise<void>;
  /** forgets the task's run, if it is still this one (a later attempt's run stays) */
  abstract forget(taskKey: string, runId: string): Promise<void>;
}
