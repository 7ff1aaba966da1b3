import type { SegmentRange } from '../../../engine/types';

/** One chunk of a long job, as a worker picks it up. */
export interface ChunkTask {
  jobId: string;
  index: number;
  inputKey: string;
  backgroundImageKey: string | null;
  /** where the chunk's output is stored (chunks/<job>/<index>.<ext>) */
  chunkKey: string;
  segment: SegmentRange;
  /** this chunk's share of the job's progress, percent */
  share: number;
  /**
   * the chunks in the flow: the chunk that fails the job removes all their outputs, whose keys differ
   * from `chunkKey` in their index alone (each chunk carrying every key, a 40-chunk job kept 40 x 40)
   */
  chunksInFlow: number;
  /**
   * every chunk's key, as messages queued by releases before `chunksInFlow` carry them (read, no
   * longer written: it made a job's flow grow with the square of its chunks, 17 MB for 600)
   */
  flowChunkKeys?: string[];
}

/** What a chunk hands to the join: null when it found the job ended (canceled or failed) and did nothing. */
export interface ChunkOutcome {
  index: number;
  frames: number;
  durationSeconds: number;
  notes: string[];
}

/** The join of a long job: runs once every chunk has succeeded. */
export interface JoinTask {
  jobId: string;
  inputKey: string;
  backgroundImageKey: string | null;
  chunkKeys: string[];
}

/**
 * Hands a long job's chunks to the queue, with the join waiting on them (a BullMQ flow: any worker
 * takes any chunk; a failed chunk is retried alone). Idempotent per job id.
 */
export abstract class ChunkDispatcher {
  abstract dispatch(join: JoinTask, chunks: ChunkTask[]): Promise<void>;
}
