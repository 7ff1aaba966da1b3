import type { SegmentRange } from '../../../engine/types';

export interface ChunkRange extends SegmentRange {
  /** this chunk's share of the job's frames, in percent (for the job's progress) */
  share: number;
}

/**
 * The chunks of a job whose processed video lasts `durationSeconds` (a preview: only its first
 * seconds): as few equal chunks as keep each within `chunkSeconds`, so that N workers finish together.
 * Null when one chunk would do (short jobs keep the single-task path) or chunking is off (0).
 * The last chunk runs to the end of what is processed, whatever the rounding of the probed duration.
 */
export function planChunks(durationSeconds: number, previewDuration: number | null | undefined, chunkSeconds: number, prerollSeconds: number): ChunkRange[] | null {
  const processed = previewDuration && previewDuration < durationSeconds ? previewDuration : durationSeconds;
  if (!(chunkSeconds > 0) || !(processed > chunkSeconds)) return null;
  const count = Math.ceil(processed / chunkSeconds);
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
