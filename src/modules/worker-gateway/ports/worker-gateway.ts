import { JobFailureCode } from '../../../common/errors/error-codes';
import { JobSettings } from '../../../contract/job-settings';
import type { MediaLimits } from '../../../engine/media/limits';
import type { SegmentRange } from '../../../engine/types';

/** Everything a worker needs to process one job; storage keys, never credentials. */
export interface WorkerTask {
  jobId: string;
  inputKey: string;
  outputKey: string;
  /** storage key of the fetched background image, when the background is an image */
  backgroundImageKey: string | null;
  settings: JobSettings;
  maxDurationSeconds: number;
  /** the input gate's frame and image size limits; absent: the engine's defaults */
  mediaLimits?: MediaLimits;
  /** one chunk of a long job (its time range and pre-roll): the output is that chunk, without audio */
  segment?: SegmentRange;
}

export interface WorkerOutcome {
  durationSeconds: number;
  frames: number;
  notes: string[];
}

/** A failure the job reports with a contract error code. */
export class WorkerFailure extends Error {
  constructor(
    readonly code: JobFailureCode,
    message: string,
  ) {
    super(message);
    this.name = 'WorkerFailure';
  }
}

/**
 * The abort reason of a task stopped because its process is shutting down: the task runs again
 * elsewhere, so a run already on a remote worker is left going for that attempt to follow.
 */
export class HandingOver extends Error {
  override readonly name = 'HandingOver';
}

/** Runs the processing of one job somewhere (this process's engine, or a remote worker). */
export abstract class WorkerGateway {
  abstract process(task: WorkerTask, onProgress: (percent: number) => void, signal?: AbortSignal): Promise<WorkerOutcome>;
  /** 'ok' when configured and healthy, else a reason. */
  abstract check(): Promise<string>;
  /** The task will not run (its job ended): stops what an earlier attempt left running for it elsewhere, if anything. */
  async giveUp(_task: Pick<WorkerTask, 'jobId' | 'outputKey'>): Promise<void> {}
}
