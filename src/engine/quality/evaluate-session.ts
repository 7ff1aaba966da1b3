import { Matte, RgbFrame, SegmentationSession } from '../types';
import { resizePlane } from '../models/image/resample';
import { MatteScorer, MatteScores } from './metrics';

export interface SessionEvaluation {
  scores: MatteScores;
  /** wall-clock milliseconds per segment() call, averaged over the clip */
  msPerFrame: number;
}

/** Bilinear upscale of a matte to the truth's size (what the pipeline's scaler does). */
export function matteAtSize(matte: Matte, width: number, height: number): Uint8Array {
  if (matte.width === width && matte.height === height) return matte.data;
  const scaled = resizePlane(matte, width, height);
  const out = new Uint8Array(scaled.length);
  for (let i = 0; i < scaled.length; i++) out[i] = scaled[i] + 0.5;
  return out;
}

/**
 * Feeds every frame (already scaled to the session's input size) in order and scores the mattes
 * against the ground-truth alpha (at the video's size).
 */
export async function evaluateSession(
  session: SegmentationSession,
  frames: readonly Uint8Array[],
  truth: readonly Uint8Array[],
  truthSize: { width: number; height: number },
): Promise<SessionEvaluation> {
  const scorer = new MatteScorer();
  let busy = 0;
  const count = Math.min(frames.length, truth.length);
  for (let index = 0; index < count; index++) {
    const frame: RgbFrame = { index, width: session.inputWidth, height: session.inputHeight, data: Buffer.from(frames[index].buffer, frames[index].byteOffset, frames[index].byteLength) };
    const start = performance.now();
    const matte = await session.segment(frame);
    busy += performance.now() - start;
    scorer.addFrame(matteAtSize(matte, truthSize.width, truthSize.height), truth[index]);
  }
  return { scores: scorer.scores(), msPerFrame: count ? busy / count : 0 };
}
