/**
 * Matte quality of a model on a clip with ground truth: the clip is decoded exactly as the engine
 * decodes it for the model, the mattes are scaled to the video's size, and scored frame by frame
 * against the exact alpha the clip was composited with (IoU, MAD, dtSSD). `maxFrames` scores a prefix.
 */
import { ffmpegPath } from '../../src/engine/media/binaries';
import { MediaProcess } from '../../src/engine/media/process';
import { probe } from '../../src/engine/media/input-gate';
import { buildDecodeArgs } from '../../src/engine/pipeline/ffmpeg-args';
import { FrameReader } from '../../src/engine/pipeline/frame-reader';
import { matteAtSize } from '../../src/engine/quality/evaluate-session';
import { MatteScorer, MatteScores } from '../../src/engine/quality/metrics';
import { SegmentationModel } from '../../src/engine/types';

export interface QualityRow extends MatteScores {
  msPerFrame: number;
  /** CPU time of this process (user + system, all its threads) per frame of segmentation: steadier than `msPerFrame` under load */
  cpuMsPerFrame: number;
  /** each frame's IoU at 0.5, in order */
  frameIous: number[];
}

export function truthDecodeArgs(truthPath: string): string[] {
  return ['-v', 'error', '-nostdin', '-i', truthPath, '-vsync', 'passthrough', '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1'];
}

export async function measureQuality(model: SegmentationModel, clipPath: string, truthPath: string, maxFrames = Infinity): Promise<QualityRow> {
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
  let cpuUs = 0;
  try {
    for (let index = 0; index < maxFrames; index++) {
      const [data, truth] = await Promise.all([frames.next(), truths.next()]);
      if (!data || !truth) break;
      const started = performance.now();
      const cpu = process.cpuUsage();
      const matte = await session.segment({ index, ...input, data });
      const used = process.cpuUsage(cpu);
      cpuUs += used.user + used.system;
      busyMs += performance.now() - started;
      scorer.addFrame(matteAtSize(matte, video.width, video.height), truth);
    }
  } finally {
    decoder.kill();
    truthDecoder.kill();
    await session.close();
  }
  const scores = scorer.scores();
  return { ...scores, msPerFrame: scores.frames ? busyMs / scores.frames : 0, cpuMsPerFrame: scores.frames ? cpuUs / 1000 / scores.frames : 0, frameIous: scorer.frameIous };
}
