import { Matte, SegmentationSession } from '../types';
import { resizePlane } from '../models/image/resample';
import { MatteScorer, MatteScores } from './metrics';
import { FramesInFlight } from '../pipeline/frames-in-flight';

export interface SessionEvaluation {
  scores: MatteScores;
  /** IoU at 0.5, frame by frame */
  frameIous: number[];
  /** wall-clock milliseconds per frame from the first segment() call to the last matte, scoring left out */
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
 * Feeds every frame (already scaled to the session's input size) in order, as the pipeline does
 * (up to the session's framesInFlight at once), and scores the mattes against the ground-truth
 * alpha (at the video's size).
 */
export async function evaluateSession(
  session: SegmentationSession,
  frames: readonly Uint8Array[],
  truth: readonly Uint8Array[],
  truthSize: { width: number; height: number },
): Promise<SessionEvaluation> {
  const scorer = new MatteScorer();
  const count = Math.min(frames.length, truth.length);
  const inFlight = FramesInFlight.mattes(session);
  const read = readerOf(frames.slice(0, count));
  const started = performance.now();
  let scoring = 0;
  for (let scored = 0; scored < count; scored++) {
    const matte = (await inFlight.next(read))!;
    const scoringStarted = performance.now();
    scorer.addFrame(matteAtSize(matte, truthSize.width, truthSize.height), truth[scored]);
    scoring += performance.now() - scoringStarted;
  }
  return { scores: scorer.scores(), frameIous: [...scorer.frameIous], msPerFrame: count ? (performance.now() - started - scoring) / count : 0 };
}

/**
 * A surveying session's survey (pro's prompt attributes) as the engine runs it: every frame in
 * order, up to the session's framesInFlight at once, then `finishSurvey`. Nothing for other sessions.
 */
export async function surveyFrames(session: SegmentationSession, frames: readonly Uint8Array[]): Promise<void> {
  if (!session.surveyFrame) return;
  await new FramesInFlight(session, (frame) => session.surveyFrame!(frame)).drain(readerOf(frames));
  session.finishSurvey?.();
}

/** `read` for FramesInFlight: the frames in order, then undefined */
function readerOf(frames: readonly Uint8Array[]): () => Promise<Buffer | undefined> {
  let handed = 0;
  return async () => {
    if (handed === frames.length) return undefined;
    const frame = frames[handed++];
    return Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength);
  };
}
