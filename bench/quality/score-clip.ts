/**
 * A model's matte quality on one clip with per-frame masks, through the engine's own decoding:
 * the clip is decoded as the pipeline decodes it for the model's session, each matte scaled to the
 * video's size and scored against the mask (IoU at 0.5, MAD, dtSSD). `maxFrames` scores a prefix.
 */
import { ffmpegPath } from '../../src/engine/media/binaries';
import { probe } from '../../src/engine/media/input-gate';
import { MediaProcess } from '../../src/engine/media/process';
import { buildDecodeArgs } from '../../src/engine/pipeline/ffmpeg-args';
import { FrameReader } from '../../src/engine/pipeline/frame-reader';
import { matteAtSize } from '../../src/engine/quality/evaluate-session';
import { MatteScorer, MatteScores } from '../../src/engine/quality/metrics';
import { SegmentationModel } from '../../src/engine/types';
import { truthDecodeArgs } from '../engine/quality';

export interface ClipScore extends MatteScores {
  msPerFrame: number;
}

export async function scoreClip(model: SegmentationModel, clipPath: string, truthPath: string, maxFrames = Infinity): Promise<ClipScore> {
  const video = await probe(clipPath);
  const session = await model.createSession({ width: video.width, height: video.height, fps: video.fps });
  const input = { width: session.inputWidth, height: session.inputHeight };
  const source = { inputPath: clipPath, pin: video.pin, needsLibvpxDecoder: video.needsLibvpxDecoder, fps: video.fps, size: video };
  const decoder = new MediaProcess(ffmpegPath(), buildDecodeArgs(source, input), { readStdout: true });
  const truthDecoder = new MediaProcess(ffmpegPath(), truthDecodeArgs(truthPath), { readStdout: true });
  const frames = new FrameReader(decoder.stdout, input.width * input.height * 3);
  const truths = new FrameReader(truthDecoder.stdout, video.width * video.height);
  const scorer = new MatteScorer();
  let busyMs = 0;
  try {
    for (let index = 0; index < maxFrames; index++) {
      const [data, truth] = await Promise.all([frames.next(), truths.next()]);
      if (!data || !truth) break;
      const started = performance.now();
      const matte = await session.segment({ index, ...input, data });
      busyMs += performance.now() - started;
      scorer.addFrame(matteAtSize(matte, video.width, video.height), truth);
    }
  } finally {
    decoder.kill();
    truthDecoder.kill();
    await session.close();
  }
  const scores = scorer.scores();
  return { ...scores, msPerFrame: scores.frames ? busyMs / scores.frames : 0 };
}
