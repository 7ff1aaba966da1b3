/**
 * Matte quality of a model on a clip with ground truth: the clip is decoded exactly as the engine
 * decodes it for the model, the mattes are scaled to the video's size, and scored frame by frame
 * against the exact alpha the clip was composited with (IoU, MAD, dtSSD). `maxFrames` scores a prefix.
 */
import { ffmpegPath } from '../../src/engine/media/binaries';
import { MediaProcess } from '../../src/engine/media/process';
import { probe } from '../../src/engine/media/input-gate';
import { sourceSpecOf } from '../../src/engine/pipeline/plan';
import { buildDecodeArgs } from '../../src/engine/pipeline/ffmpeg-args';
import { FramesInFlight } from '../../src/engine/pipeline/frames-in-flight';
import { FrameReader } from '../../src/engine/pipeline/frame-reader';
import { matteAtSize } from '../../src/engine/quality/evaluate-session';
import { MatteScorer, MatteScores } from '../../src/engine/quality/metrics';
import { SegmentationModel } from '../../src/engine/types';

export interface QualityRow extends MatteScores {
  /** wall time per frame, from the first frame handed to the session to the last matte, scoring left out */
  msPerFrame: number;
  /** CPU time of this process (user + system, all its threads) per frame over the run, scoring included: steadier than `msPerFrame` under load */
  cpuMsPerFrame: number;
  /** each frame's IoU at 0.5, in order */
  frameIous: number[];
  /** `original`'s ISNet runs over the clip, and how many of them at its small size (absent for other models) */
  salientRuns?: { keyframes: number; small: number };
}

/** the counters `original`'s session keeps of its ISNet runs, where the session has them */
function salientRunsOf(session: object): QualityRow['salientRuns'] {
  const { keyframes, keyframesSmall } = session as { keyframes?: unknown; keyframesSmall?: unknown };
  return typeof keyframes === 'number' && typeof keyframesSmall === 'number' ? { keyframes, small: keyframesSmall } : undefined;
}

export function truthDecodeArgs(truthPath: string): string[] {
  return ['-v', 'error', '-nostdin', '-i', truthPath, '-vsync', 'passthrough', '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1'];
}

export async function measureQuality(model: SegmentationModel, clipPath: string, truthPath: string, maxFrames = Infinity): Promise<QualityRow> {
  const video = await probe(clipPath);
  const session = await model.createSession({ width: video.width, height: video.height, fps: video.fps });
  const input = { width: session.inputWidth, height: session.inputHeight };
  const source = sourceSpecOf(clipPath, video);
  const decoder = new MediaProcess(ffmpegPath(), buildDecodeArgs(source, input), { readStdout: true });
  const truthDecoder = new MediaProcess(ffmpegPath(), truthDecodeArgs(truthPath), { readStdout: true });
  const frames = new FrameReader(decoder.stdout, input.width * input.height * 3);
  const truths = new FrameReader(truthDecoder.stdout, video.width * video.height);
  const scorer = new MatteScorer();
  const inFlight = FramesInFlight.mattes(session);
  let handed = 0;
  const read = async () => (handed++ < maxFrames ? frames.next() : undefined);
  const started = performance.now();
  const cpu = process.cpuUsage();
  let scoringMs = 0;
  try {
    for (;;) {
      // frames handed on as the pipeline does: up to the session's framesInFlight at once
      const matte = await inFlight.next(read);
      const truth = matte && (await truths.next());
      if (!matte || !truth) break;
      const scoringStarted = performance.now();
      scorer.addFrame(matteAtSize(matte, video.width, video.height), truth);
      scoringMs += performance.now() - scoringStarted;
    }
  } finally {
    decoder.kill();
    truthDecoder.kill();
    await session.close();
  }
  const busyMs = performance.now() - started - scoringMs;
  const used = process.cpuUsage(cpu);
  const cpuUs = used.user + used.system;
  const scores = scorer.scores();
  return { ...scores, msPerFrame: scores.frames ? busyMs / scores.frames : 0, cpuMsPerFrame: scores.frames ? cpuUs / 1000 / scores.frames : 0, frameIous: scorer.frameIous, salientRuns: salientRunsOf(session) };
}
