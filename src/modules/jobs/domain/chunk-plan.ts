import type { SegmentRange } from '../../../engine/types';

export interface ChunkRange extends SegmentRange {
  /** this chunk's share of the job's frames, in percent (for the job's progress) */
  share: number;
}

/**
 * The most chunks a job is cut into; a longer video gets longer chunks. A job's flow is queued in one
 * write, and `CHUNK_SECONDS=1` with a long `MAX_VIDEO_SECONDS` made thousands (3,600 for an hour).
 */
export const MAX_CHUNKS_PER_JOB = 500;

/**
 * Each chunk spans at least this many frames at the video's `frameRate`, and so holds one whatever
 * the rounding of its ends to frames (each end moves by half a frame at most). A slideshow of one
 * picture every 20 s, cut by seconds alone, made chunks holding none: its job failed.
 */
const MIN_FRAMES_PER_CHUNK = 2;

/**
 * The chunks of a job whose processed video lasts `durationSeconds` (a preview: only its first
 * seconds): as few equal chunks as keep each within `chunkSeconds` (at most MAX_CHUNKS_PER_JOB, and
 * each of MIN_FRAMES_PER_CHUNK where the frame rate is known), so that N workers finish together.
 * Null when one chunk would do (short jobs keep the single-task path) or chunking is off (0). The
 * last chunk runs to the end of what is processed, whatever the rounding of the probed duration.
 */
export function planChunks(durationSeconds: number, previewDuration: number | null | undefined, chunkSeconds: number, prerollSeconds: number, frameRate?: number | null): ChunkRange[] | null {
  const processed = previewDuration && previewDuration < durationSeconds ? previewDuration : durationSeconds;
  if (!(chunkSeconds > 0) || !(processed > chunkSeconds)) return null;
  const holdingFrames = frameRate && frameRate > 0 ? Math.floor((processed * frameRate) / MIN_FRAMES_PER_CHUNK) : Infinity;
  const count = Math.min(Math.ceil(processed / chunkSeconds), MAX_CHUNKS_PER_JOB, holdingFrames);
  if (count < 2) return null;
  const length = processed / count;
  return Array.from({ length: count }, (_, index) => ({
    startSeconds: round(index * length),
    endSeconds: index === count - 1 ? undefined : round((index + 1) * length),
    prerollSeconds: index === 0 ? 0 : prerollSeconds,
    share: 100 / count,
  }));
}

/** Boundaries to the millisecond: what every worker rounds to the same frame. */
function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

export { segmentFormatFor as chunkFormatOf } from '../../../engine/chunks/segment';
