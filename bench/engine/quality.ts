/**
 * Matte quality of a model on a clip with ground truth: the clip is decoded exactly as the engine
 * decodes it for the model, the mattes are scaled to the video's size, and scored frame by frame
 * against the exact alpha the clip was composited with (IoU, MAD, dtSSD). `maxFrames` scores a prefix.
 * A session that hands the clip to another model (HandOver) has that model scored, as the engine
 * would run it, with both models' time counted.
 */
import { ffmpegPath } from '../../src/engine/media/binaries';
import { MediaProcess } from '../../src/engine/media/process';
import { probe } from '../../src/engine/media/input-gate';
import { pictureInBars } from '../../src/engine/models/image/picture-bars';
import { sourceSpecOf } from '../../src/engine/pipeline/plan';
import { buildDecodeArgs } from '../../src/engine/pipeline/ffmpeg-args';
import { FramesInFlight } from '../../src/engine/pipeline/frames-in-flight';
import { FrameReader } from '../../src/engine/pipeline/frame-reader';
import { matteAtSize } from '../../src/engine/quality/evaluate-session';
import { MatteScorer, MatteScores } from '../../src/engine/quality/metrics';
import { HandOver, ModelName, SegmentationModel } from '../../src/engine/types';

export interface QualityRow extends MatteScores {
  /** wall time per frame, from the first frame handed to the session to the last matte, scoring left out */
  msPerFrame: number;
  /** CPU time of this process (user + system, all its threads) per frame over the run, scoring included: steadier than `msPerFrame` under load */
  cpuMsPerFrame: number;
  /** each frame's IoU at 0.5, in order */
  frameIous: number[];
  /** `original`'s ISNet runs over the clip, and how many of them at its small size (absent for other models) */
  salientRuns?: { keyframes: number; small: number };
  /** the model the session handed the clip to (HandOver), which made these mattes */
  handedOverTo?: ModelName;
}

/** the counters `original`'s session keeps of its ISNet runs, where the session has them */
function salientRunsOf(session: object): QualityRow['salientRuns'] {
  const { keyframes, keyframesSmall } = session as { keyframes?: unknown; keyframesSmall?: unknown };
  return typeof keyframes === 'number' && typeof keyframesSmall === 'number' ? { keyframes, small: keyframesSmall } : undefined;
}

export function truthDecodeArgs(truthPath: string): string[] {
  return ['-v', 'error', '-nostdin', '-i', truthPath, '-vsync', 'passthrough', '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1'];
}

/** a table's model column: the model asked for, and the one its session handed the clip to */
export function modelColumn(name: string, row: QualityRow): string {
  return row.handedOverTo ? `${name} (handed to ${row.handedOverTo})` : name;
}

/** loads the model a session hands its video to (HandOver): the benchmark then scores that one, as the engine would */
export type HandOverLoader = (model: ModelName) => Promise<SegmentationModel>;

export async function measureQuality(model: SegmentationModel, clipPath: string, truthPath: string, maxFrames = Infinity, handOverTo?: HandOverLoader): Promise<QualityRow> {
  const first = await measureSession(model, clipPath, truthPath, maxFrames);
  if (!('handOver' in first)) return first;
  if (!handOverTo) throw first.handOver;
  const row = await measureQuality(await handOverTo(first.handOver.model), clipPath, truthPath, maxFrames);
  // the first model's time on the frames it saw counts: the engine spends it too
  const frames = row.frames;
  return { ...row, handedOverTo: first.handOver.model, msPerFrame: row.msPerFrame + first.busyMs / frames, cpuMsPerFrame: row.cpuMsPerFrame + first.cpuMs / frames };
}

/** a session's HandOver, with the time spent before it */
interface HandedOver {
  handOver: HandOver;
  busyMs: number;
  cpuMs: number;
}

async function measureSession(model: SegmentationModel, clipPath: string, truthPath: string, maxFrames: number): Promise<QualityRow | HandedOver> {
  const video = await probe(clipPath);
  // the picture between bars on the first frame, as the engine finds it (engine.ts)
  const picture = pictureInBars(video.firstFrame.data, video.firstFrame.width, video.firstFrame.height);
  const session = await model.createSession({ width: video.width, height: video.height, fps: video.fps, picture });
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
  const spent = () => {
    const used = process.cpuUsage(cpu);
    return { busyMs: performance.now() - started - scoringMs, cpuMs: (used.user + used.system) / 1000 };
  };
  let handOver: HandOver | undefined;
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
    handOver = session.handOverAtEnd?.();
  } catch (error) {
    if (!(error instanceof HandOver)) throw error;
    handOver = error;
  } finally {
    decoder.kill();
    truthDecoder.kill();
    await session.close();
  }
  const { busyMs, cpuMs } = spent();
  if (handOver) return { handOver, busyMs, cpuMs };
  const scores = scorer.scores();
  return { ...scores, msPerFrame: scores.frames ? busyMs / scores.frames : 0, cpuMsPerFrame: scores.frames ? cpuMs / scores.frames : 0, frameIous: scorer.frameIous, salientRuns: salientRunsOf(session) };
}
