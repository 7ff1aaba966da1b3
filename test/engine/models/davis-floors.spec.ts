/**
 * @jest-environment ./test/engine/models/support/onnx-environment.js
 * @slow
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'path';
import { writeDavisComposite } from '../../../bench/matting/davis-composites';
import { loadModel } from '../../../src/engine/models';
import { evaluateSession } from '../../../src/engine/quality/evaluate-session';
import { MatteScores } from '../../../src/engine/quality/metrics';
import { ModelName } from '../../../src/engine/types';
import { decodeAlphaFrames, decodeRgbFrames, ffmpegPath, MEDIA_DIR } from './support/clips';

/**
 * Floors on real camera footage: DAVIS 2016 sequences with a hand-made mask of the primary subject
 * in every frame (read from ../shared/media/davis at run time, never copied; see its README).
 * `human` (~0.25 s a frame) is scored on the whole clips (166 frames), as the floor is defined;
 * `original` (~1 s a frame: ISNet) on the first `ORIGINAL_FRAMES` frames of each sequence, to keep
 * the suite affordable; `npm run bench:davis` scores the whole clips.
 */
const CACHE_DIR = resolve(process.cwd(), '.cache/models');
const DAVIS_DIR = join(MEDIA_DIR, 'davis');
const SIZE = { width: 854, height: 480, fps: 24 };
const ORIGINAL_FRAMES = 20;
const MINUTES = 60_000;

/** `sequence`: a DAVIS sequence's name, or a clip's path without its extension */
async function score(model: ModelName, sequence: string, frameLimit = Infinity): Promise<MatteScores> {
  const clip = sequence.includes('/') ? sequence : join(DAVIS_DIR, sequence);
  const session = await (await loadModel(model, { cacheDir: CACHE_DIR })).createSession(SIZE);
  const frames = decodeRgbFrames(`${clip}.mp4`, session.inputWidth, session.inputHeight, frameLimit);
  const truth = decodeAlphaFrames(`${clip}.alpha.mkv`, SIZE.width, SIZE.height, frameLimit);
  const { scores, msPerFrame } = await evaluateSession(session, frames, truth, SIZE);
  await session.close();
  console.log(`${model} on ${basename(clip)} (${scores.frames} frames): IoU ${scores.iou.toFixed(3)}  dtSSD ${scores.dtssd.toFixed(2)}  ${msPerFrame.toFixed(0)} ms/frame`);
  expect(scores.frames).toBe(Math.min(frameLimit, truth.length));
  expect(scores.frames).toBeGreaterThanOrEqual(ORIGINAL_FRAMES);
  return scores;
}

/** `model` scored on a DAVIS person sequence laid over DAVIS car-roundabout (bench/matting/davis-composites.ts), written to a temporary directory */
async function scoreOverCarRoundabout(model: ModelName, person: string): Promise<MatteScores> {
  const dir = await mkdtemp(join(tmpdir(), 'davis-composite-'));
  try {
    return await score(model, writeDavisComposite(person, 'car-roundabout', dir));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

describe('the main subject on real footage (DAVIS 2016)', () => {
  /**
   * Measured 0.875 / 0.819 / 0.907, mean 0.867, with RVM's encoder at 640 px in int8 and the main
   * people chosen (0.854 / 0.819 / 0.887 at 480 px in fp32, everyone kept; rvm-geometry.ts). The floor is
   * a mean of 0.85; this holds 0.86 so that the encoder's gain is not lost unnoticed.
   * Flicker: dtSSD (x1e-3) 10.8 / 17.8 / 13.9; the "today" was a per-frame model, whose
   * flicker `npm run bench:davis` prints with BENCH_MODELS=per-frame-selfie: 50.0 / 22.7 / 27.9.
   */
  it('human: mean IoU >= 0.86 on rollerblade, swing and breakdance-flare, none below 0.75, and less flicker than a per-frame model', async () => {
    const perFrameFlicker: Record<string, number> = { rollerblade: 50.0, swing: 22.7, 'breakdance-flare': 27.9 };
    const ious: number[] = [];
    for (const [sequence, flicker] of Object.entries(perFrameFlicker)) {
      const scores = await score('human', sequence);
      ious.push(scores.iou);
      expect(scores.dtssd).toBeLessThan(flicker);
    }
    expect(mean(ious)).toBeGreaterThanOrEqual(0.86);
    expect(Math.min(...ious)).toBeGreaterThanOrEqual(0.75);
  }, 5 * MINUTES);

  /**
   * Issue 15 asks 0.80 over the whole clips; bench:davis measures 0.801 there (0.785 before RVM's
   * encoder went to 640 px and ISNet to every frame of a subject changing shape).
   * The first `ORIGINAL_FRAMES` (20) frames of each sequence measured 0.835: a prefix keeps the spec
   * affordable, as ISNet runs on every frame or every 2nd of the object sequences.
   */
  it('original: mean IoU >= 0.80 over the first frames of the seven sequences (people, riders, a dog, a car)', async () => {
    const ious: number[] = [];
    for (const sequence of ['rollerblade', 'swing', 'breakdance-flare', 'kite-walk', 'bmx-trees', 'dog', 'car-roundabout']) ious.push((await score('original', sequence, ORIGINAL_FRAMES)).iou);
    console.log(`original: mean IoU ${mean(ious).toFixed(3)} over the first ${ORIGINAL_FRAMES} frames`);
    expect(mean(ious)).toBeGreaterThanOrEqual(0.8);
  }, 12 * MINUTES);

  /**
   * DAVIS people laid over DAVIS car-roundabout (bench/matting/davis-composites.ts), whole clips: the
   * camera follows a car behind them.
   * - rollerblade (35 frames): a fast skater whom the detector scores 0.36-0.44. `original` measured
   *   0.093 when it chose the car and dropped the skater on the keyframes where RVM lost their
   *   predicted box; 0.649 once people came before vehicles (subject-selector.ts, rule 4); 0.927 once
   *   RVM's confirmation of a person lasts their track (track-chooser.ts).
   * - kite-walk (75 frames): a person carrying a board, whom the detector boxes from the helmet to the
   *   board, and the car also boxed as a motorcycle. 0.245 when the car was chosen on size and came in
   *   as what the person rides; 0.504 once the person is rated on RVM's whole figure and a box over a
   *   surer car is that car (track-chooser.ts, main-subjects.ts); DAVIS's mask holds the board and the
   *   kite's lines as well, which `human` misses too (0.537).
   * - swing (60 frames): a girl on a swing, whom the detector scores 0.13-0.32 on the first frames
   *   while it is sure of the car (0.62). 0.715 when the car was chosen until she scored 0.5 (frame
   *   12); 0.796 once a person the detector scores low starts a track where RVM's matte confirms
   *   them while no person is tracked (track-chooser.ts, `peopleRvmConfirms`); 0.821 once her box,
   *   inside the car's but reaching its lowest part, no longer counts as its driver's on keyframe 8
   *   (subject-selector.ts, rule 4). Without VNNI (the mirrored pair's small pass), 0.783 -> 0.808.
   */
  it.each([
    ['rollerblade', 0.85],
    ['kite-walk', 0.45],
    ['swing', 0.79],
  ])('original: %s, a person before a car the camera follows, is the subject, not the car (IoU >= %s)', async (person, floor) => {
    expect((await scoreOverCarRoundabout('original', person)).iou).toBeGreaterThanOrEqual(floor);
  }, 3 * MINUTES);

  /**
   * The skater passes before the car, her box a keyframe behind her. While the car's box (the
   * detector sure of it at 0.74, apart from her lagging box) explained every pixel of hers inside it,
   * the previous frame no longer vouched for her and `human` dropped her on frames 8-23: 0.499. The
   * car's box now explains a region only where it lies wholly in it (subject-matte.ts), 0.916.
   */
  it('human: a skater passing before a car the detector is sure of stays in the matte (IoU >= 0.85)', async () => {
    expect((await scoreOverCarRoundabout('human', 'rollerblade')).iou).toBeGreaterThanOrEqual(0.85);
  }, 3 * MINUTES);

  /**
   * DAVIS breakdance-flare laid over car-roundabout (71 frames): `light`'s RVM (320 px) takes a red
   * car driving in at the frame's right edge for a person on frames 61-70. Kept as the largest region
   * no box explained, it was carried on by the previous frame's matte after the detector had boxed
   * it as a car: 0.762 through this test's path. Two rules of subject-matte.ts each keep it out:
   * a sure car's box apart from the chosen people explains it (`othersThanChosen`), 0.779; a region
   * at the frame's side edge is not taken for a missed subject (`subjectRegions`), 0.795 with or
   * without the first.
   */
  it('light: a car driving in that RVM takes for a person does not come into the matte (IoU >= 0.77)', async () => {
    expect((await scoreOverCarRoundabout('light', 'breakdance-flare')).iou).toBeGreaterThanOrEqual(0.77);
  }, 3 * MINUTES);

  /**
   * A hard cut from DAVIS dog (24 frames) to car-slide (32 frames, scaled to 854x480). With the dog
   * alone chosen RVM runs on keyframes only, so the cut went unseen: the dog's track held, the car
   * was dropped for 4 frames (0.8768 over the clip); the session now sees the cut on every frame
   * and finds the new shot's subject on the frame after it (0.9455).
   */
  it('original: after a hard cut from one object to another, the new shot’s subject is kept from the frame after the cut (IoU >= 0.92)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'object-cut-'));
    try {
      const clip = join(dir, 'dog-then-car');
      const shots = (pixels: string) =>
        `[0:v]trim=end_frame=24,setpts=PTS-STARTPTS,format=${pixels}[a];[1:v]trim=end_frame=32,scale=854:480,setsar=1,setpts=PTS-STARTPTS,format=${pixels}[b];[a][b]concat=n=2:v=1[v]`;
      const cut = (extension: string, pixels: string, codec: string[]) =>
        execFileSync(ffmpegPath(), ['-v', 'error', '-i', join(DAVIS_DIR, `dog${extension}`), '-i', join(MEDIA_DIR, `car-slide${extension}`), '-filter_complex', shots(pixels), '-map', '[v]', ...codec, `${clip}${extension}`]);
      cut('.mp4', 'yuv420p', ['-c:v', 'libx264', '-crf', '18']);
      cut('.alpha.mkv', 'gray', ['-c:v', 'ffv1']);
      expect((await score('original', clip)).iou).toBeGreaterThanOrEqual(0.92);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 3 * MINUTES);

  /**
   * DAVIS dog cut to 4:3 between black pillarbox bars (854x480). ISNet squashes what it is shown
   * to its square; shown the bars too, the picture got three quarters of its columns and measured
   * 0.871 over these frames; shown the picture alone (picture-bars.ts), 0.930.
   */
  it('original: a 4:3 picture between pillarbox bars is matted as the picture (IoU >= 0.9 over the first frames)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pillarbox-'));
    try {
      const clip = join(dir, 'dog-pillarbox');
      const pillarbox = 'crop=640:480,pad=854:480:107:0:black';
      execFileSync(ffmpegPath(), ['-v', 'error', '-i', join(DAVIS_DIR, 'dog.mp4'), '-frames:v', String(ORIGINAL_FRAMES), '-vf', pillarbox, '-c:v', 'libx264', '-crf', '18', '-pix_fmt', 'yuv420p', `${clip}.mp4`]);
      // the alpha's bars at 0 (ffmpeg pads a grey picture with studio-range black, 16)
      execFileSync(ffmpegPath(), ['-v', 'error', '-i', join(DAVIS_DIR, 'dog.alpha.mkv'), '-frames:v', String(ORIGINAL_FRAMES), '-vf', `${pillarbox},lut=y='if(lt(val,17),0,val)'`, '-c:v', 'ffv1', '-pix_fmt', 'gray', `${clip}.alpha.mkv`]);
      expect((await score('original', clip, ORIGINAL_FRAMES)).iou).toBeGreaterThanOrEqual(0.9);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 3 * MINUTES);
});
