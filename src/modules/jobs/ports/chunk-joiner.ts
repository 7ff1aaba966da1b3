import type { JobSettings } from '../../../contract/job-settings';
import type { MediaLimits } from '../../../engine/media/limits';

export interface JoinChunksRequest {
  /** the job's input, for its audio */
  inputKey: string;
  /** the chunks' outputs, in order */
  chunkKeys: string[];
  /** each chunk's duration, seconds (frames / fps), in the same order */
  chunkDurations: number[];
  outputKey: string;
  settings: JobSettings;
  mediaLimits?: MediaLimits;
}

/** Joins a long job's chunks into its one output, stored at `outputKey`. */
export abstract class ChunkJoiner {
  abstract join(request: JoinChunksRequest, signal?: AbortSignal): Promise<void>;
}
