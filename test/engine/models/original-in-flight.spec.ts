/**
 * @jest-environment ./test/engine/models/support/onnx-environment.js
 * @slow
 */
import { join, resolve } from 'path';
import { loadModel } from '../../../src/engine/models';
import { IsnetSegmenter } from '../../../src/engine/models/isnet/isnet-segmenter';
import { OriginalSession } from '../../../src/engine/models/original/original-model';
import { KeyframePropagator } from '../../../src/engine/models/temporal/keyframe-propagator';
import { FramesInFlight } from '../../../src/engine/pipeline/frames-in-flight';
import { matteAtSize } from '../../../src/engine/quality/evaluate-session';
import { binaryIou } from '../../../src/engine/quality/metrics';
import { Matte } from '../../../src/engine/types';
import { decodeAlphaFrames, decodeRgbFrames, MEDIA_DIR } from './support/clips';

const CACHE_DIR = resolve(process.cwd(), '.cache/models');
const CLIP = { width: 640, height: 360, fps: 25 };
const MINUTES = 60_000;

// the models made ready (converted and quantised, on a fresh checkout) before the first test's clock starts
beforeAll(async () => {
  const session = await (await loadModel('original', { cacheDir: CACHE_DIR })).createSession(CLIP);
  await session.close();
}, 10 * MINUTES);

/**
 * Calls `started` with the image of each ISNet run that `session` starts, used or not (the models
 * are shared by sessions, so the session is given wrappers of its own).
 */
function onIsnetRun(session: OriginalSession, started: (image: Uint8Array) => void): void {
  const parts = session as unknown as { isnet: { full: IsnetSegmenter; small: IsnetSegmenter } };
  const watched = (segmenter: IsnetSegmenter): IsnetSegmenter =>
    Object.assign(Object.create(segmenter) as IsnetSegmenter, {
      probabilities: (...args: Parameters<IsnetSegmenter['probabilities']>) => {
        started(args[0]);
        return segmenter.probabilities(...args);
      },
    });
  parts.isnet = { full: watched(parts.isnet.full), small: watched(parts.isnet.small) };
}

function countIsnetRuns(session: OriginalSession): { runs: number } {
  const count = { runs: 0 };
  onIsnetRun(session, () => count.runs++);
  return count;
}

/** an ISNet run on a whole frame: the frame's index, and the frames between runs already given the next run's plane moved back to them */
interface RunStarted {
  frame: number;
  movedBack: number[];
}

/**
 * Logs the ISNet runs that `session` starts on whole frames it was given (a crop or a mirror image
 * is not one), each with the frames moved back to by then (`betweenKeyframes`), from `logFrom` on.
 */
function logRunsAgainstMovesBack(session: OriginalSession): { runs: RunStarted[]; logFrom: () => void } {
  const runs: RunStarted[] = [];
  const movedBack: number[] = [];
  // the frame's pixels, as given and as the matte's size views them, by the memory they share
  const frameOf = new WeakMap<ArrayBufferLike, number>();
  const segment = session.segment.bind(session);
  session.segment = (frame) => {
    frameOf.set(frame.data.buffer, frame.index);
    return segment(frame);
  };
  const backward = (session as unknown as { backward: KeyframePropagator }).backward;
  const propagate = backward.propagate.bind(backward);
  backward.propagate = (...args) => {
    movedBack.push(frameOf.get(args[0].buffer) ?? -1);
    return propagate(...args);
  };
  onIsnetRun(session, (image) => {
    const frame = frameOf.get(image.buffer);
    if (frame !== undefined) runs.push({ frame, movedBack: [...movedBack] });
  });
  return {
    runs,
    logFrom: () => {
      runs.length = 0;
      movedBack.length = 0;
    },
  };
}

/**
 * The mattes of `original` on the first `count` frames of `clip`, the frames handed over one by one
 * (and ISNet run at each keyframe's turn) or all at once (and ISNet's next run started ahead).
 */
async function mattes(clip: string, count: number, allAtOnce: boolean): Promise<{ mattes: Matte[]; framesInFlight?: number; peopleFrames: number; keyframes: number; keyframesAhead: number; keyframesSmall: number; isnetRuns: number }> {
  const session = (await (await loadModel('original', { cacheDir: CACHE_DIR })).createSession(CLIP)) as OriginalSession;
  session.runsAhead = allAtOnce;
  const isnet = countIsnetRuns(session);
  const frames = decodeRgbFrames(join(MEDIA_DIR, `${clip}.mp4`), session.inputWidth, session.inputHeight, count);
  const segment = (data: Uint8Array, index: number) => session.segment({ index, width: session.inputWidth, height: session.inputHeight, data: Buffer.from(data) });
  const out: Matte[] = [];
  if (allAtOnce) out.push(...(await Promise.all(frames.map(segment))));
  else for (const [index, data] of frames.entries()) out.push(await segment(data, index));
  await session.close();
  return { mattes: out, framesInFlight: session.framesInFlight, peopleFrames: session.peopleFrames, keyframes: session.keyframes, keyframesAhead: session.keyframesAhead, keyframesSmall: session.keyframesSmall, isnetRuns: isnet.runs };
}

/**
 * The mattes of `original` on the first `count` frames of `clip` fed as the engine feeds them
 * (FramesInFlight: each frame given before the one before it is awaited, and the end said), each
 * frame read `delayMs` after the last; `mattesOverlap` off: each matte made before the next frame
 * goes on (the reference).
 */
async function fedAhead(clip: string, count: number, { delayMs = 0, prerollFrom = 0, mattesOverlap = true } = {}): Promise<{ mattes: Matte[]; keyframes: number; runs: RunStarted[] }> {
  const session = (await (await loadModel('original', { cacheDir: CACHE_DIR })).createSession(CLIP)) as OriginalSession;
  session.mattesOverlap = mattesOverlap;
  const log = logRunsAgainstMovesBack(session);
  const frames = decodeRgbFrames(join(MEDIA_DIR, `${clip}.mp4`), session.inputWidth, session.inputHeight, count);
  const reader = (from: number, to: number) => {
    let handed = from;
    return async () => {
      if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
      return handed < to ? Buffer.from(frames[handed++]) : undefined;
    };
  };
  // a chunk's pre-roll, as the engine feeds it (chunks/segment.ts): its own FramesInFlight, its mattes dropped, its frames numbered from 0
  if (prerollFrom > 0) await FramesInFlight.mattes(session).drain(reader(0, prerollFrom));
  log.logFrom();
  const inFlight = FramesInFlight.mattes(session);
  const read = reader(prerollFrom, frames.length);
  const out: Matte[] = [];
  for (let matte = await inFlight.next(read); matte; matte = await inFlight.next(read)) out.push(matte);
  await session.close();
  return { mattes: out, keyframes: session.keyframes, runs: log.runs };
}

const FED_AHEAD_FRAMES = 30;
let carSlideFedAhead: ReturnType<typeof fedAhead> | undefined;
/** car-slide's first frames fed ahead, once for the tests that read them */
const carSlideAhead = () => (carSlideFedAhead ??= fedAhead('car-slide', FED_AHEAD_FRAMES));

function expectSameMattes(mattes: Matte[], reference: Matte[], count: number): void {
  expect(mattes).toHaveLength(count);
  for (const [i, matte] of mattes.entries()) {
    expect([matte.width, matte.height]).toEqual([reference[i].width, reference[i].height]);
    expect(Buffer.from(matte.data).equals(Buffer.from(reference[i].data))).toBe(true);
  }
}

describe('original with several frames in flight (RVM on the next frames while this one is finished)', () => {
  // portrait-pan: people alone, RVM only, on every frame; car-slide: an object, ISNet on keyframes
  // moved with it in between (the next keyframe's run started ahead, beside the frames before it),
  // and RVM only on the detector's keyframes (rvm-on-demand.ts)
  it.each([['portrait-pan', 12, 'every'], ['car-slide', 12, 'some']])('gives %s the mattes it gives frame by frame (%d frames), RVM on %s frame', async (clip, count, rvmOn) => {
    const [oneByOne, atOnce] = [await mattes(clip, count, false), await mattes(clip, count, true)];
    expect(atOnce.framesInFlight).toBeGreaterThan(1);
    expect(atOnce.peopleFrames).toBe(oneByOne.peopleFrames);
    if (rvmOn === 'every') expect(atOnce.peopleFrames).toBe(count);
    else expect(atOnce.peopleFrames).toBeLessThanOrEqual(count / 2);
    expect(atOnce.keyframes).toBe(oneByOne.keyframes);
    expect(oneByOne.keyframesAhead).toBe(0);
    if (rvmOn === 'some') expect(atOnce.keyframesAhead).toBeGreaterThanOrEqual(atOnce.keyframes / 2);
    // car-slide's car enters the frame: ISNet's small size does not see it, and the full size runs (isnet-scale.ts)
    expect(atOnce.keyframesSmall).toBe(0);
    expectSameMattes(atOnce.mattes, oneByOne.mattes, count);
  }, 3 * MINUTES);

  it.each(['car-slide', 'portrait-pan'])('runs no model on blank frames (a black lead-in, a fade to black), whose mattes are empty, and mattes %s between them as a video of those frames alone', async (clip) => {
    const session = (await (await loadModel('original', { cacheDir: CACHE_DIR })).createSession(CLIP)) as OriginalSession;
    const { inputWidth: width, inputHeight: height } = session;
    const isnet = countIsnetRuns(session);
    const black = (count: number) => Array.from({ length: count }, () => new Uint8Array(width * height * 3));
    const subject = decodeRgbFrames(join(MEDIA_DIR, `${clip}.mp4`), width, height, 6);
    const frames = [...black(6), ...subject, ...black(4)];
    const matted = await Promise.all(frames.map((data, index) => session.segment({ index, width, height, data: Buffer.from(data) })));
    const kept = matted.map((matte) => matte.data.filter((alpha) => alpha >= 128).length / matte.data.length);
    await session.close();
    expect(kept.slice(0, 6)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(Math.min(...kept.slice(6, 12))).toBeGreaterThan(0.02);
    expect(kept.slice(12)).toEqual([0, 0, 0, 0]);
    // ISNet ran as often as on the clip's six frames alone: none on a black frame, not even a run
    // started ahead for the keyframe planned on the fade's first frames (and thrown away at its
    // turn); RVM no more often (on none of the black frames); the same mattes
    const alone = await mattes(clip, 6, true);
    expect(session.keyframes).toBe(alone.keyframes);
    expect(isnet.runs).toBe(alone.isnetRuns);
    expect(session.peopleFrames).toBeLessThanOrEqual(alone.peopleFrames);
    expectSameMattes(matted.slice(6, 12), alone.mattes, 6);
  }, 3 * MINUTES);

  it("DAVIS dog, whose ISNet sizes agree: the small size on most keyframes, started ahead too, the mattes it gives frame by frame", async () => {
    const count = 16;
    const [oneByOne, atOnce] = [await mattes('davis/dog', count, false), await mattes('davis/dog', count, true)];
    console.log(`original on DAVIS dog, ${count} frames: ${atOnce.keyframes} keyframes, ${atOnce.keyframesSmall} at ISNet's small size, ${atOnce.keyframesAhead} started ahead`);
    expect(atOnce.keyframes).toBe(oneByOne.keyframes);
    expect(atOnce.keyframesSmall).toBe(oneByOne.keyframesSmall);
    expect(atOnce.keyframesSmall).toBeGreaterThanOrEqual(atOnce.keyframes / 2);
    expect(atOnce.keyframesAhead).toBeGreaterThan(0);
    expectSameMattes(atOnce.mattes, oneByOne.mattes, count);
  }, 3 * MINUTES);

  it('fed ahead, a frame between ISNet runs also takes the next run\'s plane moved back to it: the same runs, closer to the truth on the frames between, the same mattes however fast the frames come', async () => {
    const count = FED_AHEAD_FRAMES;
    const [ahead, slowly, forwardOnly] = [await carSlideAhead(), await fedAhead('car-slide', count, { delayMs: 40 }), await mattes('car-slide', count, true)];
    expectSameMattes(slowly.mattes, ahead.mattes, count);
    expect(ahead.keyframes).toBe(forwardOnly.keyframes);
    const truth = decodeAlphaFrames(join(MEDIA_DIR, 'car-slide.alpha.mkv'), CLIP.width, CLIP.height, count);
    const iou = (matte: Matte, i: number) => binaryIou(matteAtSize(matte, CLIP.width, CLIP.height), truth[i]);
    const between = ahead.mattes.flatMap((matte, i) => (Buffer.from(matte.data).equals(Buffer.from(forwardOnly.mattes[i].data)) ? [] : [i]));
    const mean = (mattes: Matte[]) => between.reduce((sum, i) => sum + iou(mattes[i], i), 0) / between.length;
    console.log(`original on car-slide, ${count} frames fed ahead: ${between.length} mattes changed, IoU there ${mean(forwardOnly.mattes).toFixed(4)} moved forward -> ${mean(ahead.mattes).toFixed(4)} both ways`);
    expect(between.length).toBeGreaterThanOrEqual(count / 4);
    expect(mean(ahead.mattes)).toBeGreaterThan(mean(forwardOnly.mattes));
  }, 3 * MINUTES);

  it('fed ahead, the next keyframe takes its plane and starts the run after it before the frame between, waiting for that plane, is moved back to; the mattes of each frame made before the next goes on', async () => {
    const [overlapping, oneAfterAnother] = [await carSlideAhead(), await fedAhead('car-slide', FED_AHEAD_FRAMES, { mattesOverlap: false })];
    expectSameMattes(overlapping.mattes, oneAfterAnother.mattes, FED_AHEAD_FRAMES);
    // ISNet's run on keyframe k is started ahead by the keyframe before it (k - 2, or k - 1 where ISNet
    // runs on every frame). One after another, that keyframe's planes wait for every matte before it,
    // so frame k - 3, between runs, takes k - 2's plane moved back to it before the run on k starts.
    // Overlapping, k - 3 waits for that plane beside the keyframe k - 2, which takes it and starts
    // the run on k first (unless it runs ISNet's other size too, isnet-scale.ts: it then waits for that run)
    const startedFirst = (run: RunStarted) => !run.movedBack.includes(run.frame - 3);
    const runsOn = (runs: RunStarted[], frame: number) => runs.filter((run) => run.frame === frame).length;
    const afterOneRunBetween = (runs: RunStarted[]) =>
      runs.filter((run, i) => runs.findIndex((other) => other.frame === run.frame) === i && run.frame >= 3 && runsOn(runs, run.frame - 3) === 0 && runsOn(runs, run.frame - 2) === 1 && runsOn(runs, run.frame - 1) === 0);
    const frames = (runs: RunStarted[]) => runs.map((run) => run.frame).join(' ');
    console.log(`original on car-slide, ${FED_AHEAD_FRAMES} frames fed ahead: ISNet on frames ${frames(overlapping.runs)}; on k started before frame k - 3 was moved back to: ${frames(overlapping.runs.filter(startedFirst))}`);
    const [planned, plannedInTurn] = [afterOneRunBetween(overlapping.runs), afterOneRunBetween(oneAfterAnother.runs)];
    expect(planned.length).toBeGreaterThan(FED_AHEAD_FRAMES / 4);
    expect(frames(plannedInTurn)).toEqual(frames(planned));
    expect(plannedInTurn.filter(startedFirst)).toEqual([]);
    expect(planned.filter((run) => !startedFirst(run))).toEqual([]);
  }, 3 * MINUTES);

  it('fed ahead after a pre-roll (a chunk of a long job, its frames numbered from 0 again): nothing waits for a frame that is not coming, and the chunk\'s mattes are the whole run\'s but at its seam and its end', async () => {
    // the one run's frames 9-19; that run goes on past frame 19, which takes a second side there and not in the chunk
    const [whole, chunk] = [await carSlideAhead(), await fedAhead('car-slide', 20, { prerollFrom: 9 })];
    expect(chunk.mattes).toHaveLength(11);
    const agreement = chunk.mattes.map((matte, i) => binaryIou(matteAtSize(matte, CLIP.width, CLIP.height), matteAtSize(whole.mattes[9 + i], CLIP.width, CLIP.height)));
    console.log(`original on car-slide, frames 9-19 after a pre-roll of 0-8 against one run: IoU ${agreement.map((v) => v.toFixed(3)).join(' ')}`);
    expect(Math.min(...agreement)).toBeGreaterThan(0.98);
  }, 3 * MINUTES);
});
