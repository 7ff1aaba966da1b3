/**
 * @jest-environment ./test/engine/models/support/onnx-environment.js
 * @slow
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { COMPOSITES, readSources, writeComposite } from '../../../bench/matting/composites';
import { loadModel } from '../../../src/engine/models';
import { probe } from '../../../src/engine/media/input-gate';
import { pictureInBars } from '../../../src/engine/models/image/picture-bars';
import { evaluateSession } from '../../../src/engine/quality/evaluate-session';
import { RvmMatter } from '../../../src/engine/models/rvm/rvm-matter';
import { pipelinedGeometryFor, RVM_PROFILES, RvmProfile } from '../../../src/engine/models/rvm/rvm-geometry';
import { RvmSession } from '../../../src/engine/models/rvm/rvm-session';
import { decodeAlphaFrames, decodeRgbFrames, ffmpegPath, MEDIA_DIR } from './support/clips';

/**
 * The project's own composites (bench/matting/composites.ts: walking toward the camera, partly out
 * of frame, two people, a subject before bystanders, a person turning, a subject before passers-by
 * in real footage), built here from portrait-pan (and walkers.mp4). `light` on all: the issue's
 * floor for `light` is IoU >= 0.85 on every portrait clip (measured 0.961 / 0.972 / 0.969 / 0.977 /
 * 0.942, and 0.954 on passers-by here on an AVX2-only EPYC; 0.813 on the turn at its former 384 / 256 size,
 * rvm-geometry.ts; 0.739 on the bystanders while it kept everyone in sight, light-model.ts; `human`
 * 0.986 / 0.972 / 0.987 / 0.988 / 0.983, in bench:matting with BENCH_COMPOSITES). `human` on the
 * bystanders too: the main subject alone, not everyone in sight.
 */
const CACHE_DIR = resolve(process.cwd(), '.cache/models');
const CLIP = { width: 640, height: 360, fps: 25 };
const MINUTES = 60_000;
/** a composite's frames (4 s), and a short cut's (1 s either side of it, writeCut) */
const CLIP_FRAMES = 100;
const CUT_FRAMES = 50;
/** where the cut composites cut from one clip to the other: its frame at 2 s */
const CUT_AT = 50;
/** the first 2 s, which the tests of who is chosen score where they hold the failure they guard (measured beside each) */
const CHOICE_FRAMES = 50;
/** out-of-frame's frames up to the last that RVM joins a patch of background to the person on */
const PATCH_END = 81;

describe("the project's own composites", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'composites-'));
    const sources = readSources(MEDIA_DIR);
    for (const name of Object.keys(COMPOSITES)) writeComposite(name, dir, sources);
  }, 3 * MINUTES);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** `from` in `dir` through an ffmpeg `filter`, to `to` (video as H.264, alpha as gray FFV1 with the padding's black at 0) */
  function framed(from: string, to: string, filter: string): void {
    const codec = from.endsWith('.alpha.mkv') ? ['-c:v', 'ffv1', '-pix_fmt', 'gray'] : ['-c:v', 'libx264', '-crf', '18', '-pix_fmt', 'yuv420p'];
    const alphaFilter = from.endsWith('.alpha.mkv') ? `${filter},lut=y='if(lt(val,17),0,val)'` : filter;
    execFileSync(ffmpegPath(), ['-v', 'error', '-i', join(dir, from), '-vf', alphaFilter, ...codec, join(dir, to)]);
  }

  /**
   * `model` on the composite `from` framed by an ffmpeg `filter` (bars) as the clip `name` of `size`,
   * told the picture between bars found on its first frame
   */
  async function scoreBetweenBars(model: 'light' | 'human', from: string, name: string, filter: string, size: { width: number; height: number }) {
    framed(`${from}.mp4`, `${name}.mp4`, filter);
    framed(`${from}.alpha.mkv`, `${name}.alpha.mkv`, filter);
    const { firstFrame } = await probe(join(dir, `${name}.mp4`));
    const picture = pictureInBars(firstFrame.data, firstFrame.width, firstFrame.height);
    const video = { ...size, fps: 25 };
    const session = await (await loadModel(model, { cacheDir: CACHE_DIR })).createSession({ ...video, picture });
    const frames = decodeRgbFrames(join(dir, `${name}.mp4`), session.inputWidth, session.inputHeight);
    const truth = decodeAlphaFrames(join(dir, `${name}.alpha.mkv`), size.width, size.height);
    const { scores } = await evaluateSession(session, frames, truth, video);
    await session.close();
    console.log(`${model} on ${name}: IoU ${scores.iou.toFixed(4)}`);
    expect(scores.frames).toBe(CLIP_FRAMES);
    return { picture, session, scores };
  }

  /**
   * The clip `name` in `dir`, `frames` long: a cut at 2 s (`CUT_AT`) from `first` to `second` (paths
   * without extension), video and alpha alike, half the frames from `first` before its 2 s, half from
   * `second` from its 2 s on. A second either side (CUT_FRAMES) is enough for a session to choose the
   * first shot's people (three of the detector's keyframes) and for a choice held too long to show.
   */
  function writeCut(first: string, second: string, name: string, frames: number): void {
    const side = frames / 2;
    const halves = (pixels: string) =>
      `[0:v]trim=start_frame=${CUT_AT - side}:end_frame=${CUT_AT},setpts=PTS-STARTPTS,format=${pixels}[a];[1:v]trim=start_frame=${CUT_AT}:end_frame=${CUT_AT + side},setpts=PTS-STARTPTS,format=${pixels}[b];[a][b]concat=n=2:v=1[v]`;
    const cut = (extension: string, pixels: string, codec: string[]) =>
      execFileSync(ffmpegPath(), ['-v', 'error', '-y', '-i', `${first}${extension}`, '-i', `${second}${extension}`, '-filter_complex', halves(pixels), '-map', '[v]', ...codec, join(dir, `${name}${extension}`)]);
    cut('.mp4', 'yuv420p', ['-c:v', 'libx264', '-crf', '18']);
    cut('.alpha.mkv', 'gray', ['-c:v', 'ffv1']);
  }

  async function score(model: 'light' | 'human' | 'original' | 'pro', name: string, { textPrompt, frames: count = CLIP_FRAMES }: { textPrompt?: string; frames?: number } = {}) {
    const truth = decodeAlphaFrames(join(dir, `${name}.alpha.mkv`), CLIP.width, CLIP.height, count);
    expect(truth).toHaveLength(count);
    const covered = truth.map((alpha) => alpha.reduce((sum, value) => sum + (value >= 128 ? 1 : 0), 0) / alpha.length);
    expect(Math.min(...covered)).toBeGreaterThan(0.02); // someone is always in sight
    const session = await (await loadModel(model, { cacheDir: CACHE_DIR })).createSession({ ...CLIP, textPrompt });
    const frames = decodeRgbFrames(join(dir, `${name}.mp4`), session.inputWidth, session.inputHeight, count);
    const { scores } = await evaluateSession(session, frames, truth, CLIP);
    await session.close();
    /** frames that ran ISNet (`original`, `pro`) */
    const isnetFrames = (session as { keyframes?: number }).keyframes;
    console.log(`${model}${textPrompt === undefined ? '' : ` "${textPrompt}"`} on ${name}: IoU ${scores.iou.toFixed(4)}  MAD ${scores.mad.toFixed(2)}  dtSSD ${scores.dtssd.toFixed(2)}${isnetFrames === undefined ? '' : `  (ISNet on ${isnetFrames} frames)`}`);
    expect(scores.frames).toBe(count);
    return scores;
  }

  it.each(Object.keys(COMPOSITES))('%s: 4 s with exact alpha, and light keeps IoU >= 0.85 on it', async (name) => {
    expect((await score('light', name)).iou).toBeGreaterThanOrEqual(0.85);
  }, 2 * MINUTES);

  /**
   * A cinema-wide frame draws a standing person smaller at the same long side: `light` at 320x134
   * measured 0.797 on this crop, at a 16:9 frame's pixels (370x156, rvm-geometry.ts) 0.917 in
   * bench:matting and 0.902 here (the frames scaled from the crop by ffmpeg alone).
   */
  it("turning cropped to 2.39:1 (640x268): light keeps IoU >= 0.87, at a 16:9 frame's pixels", async () => {
    const wide = { width: 640, height: 268, fps: 25 };
    const crop = (from: string, to: string, codec: string[]) => execFileSync(ffmpegPath(), ['-v', 'error', '-i', join(dir, from), '-vf', `crop=${wide.width}:${wide.height}`, ...codec, join(dir, to)]);
    crop('turning.mp4', 'turning-wide.mp4', ['-c:v', 'libx264', '-crf', '18', '-pix_fmt', 'yuv420p']);
    crop('turning.alpha.mkv', 'turning-wide.alpha.mkv', ['-c:v', 'ffv1', '-pix_fmt', 'gray']);
    const session = await (await loadModel('light', { cacheDir: CACHE_DIR })).createSession(wide);
    expect([session.inputWidth, session.inputHeight]).toEqual([370, 156]);
    const frames = decodeRgbFrames(join(dir, 'turning-wide.mp4'), session.inputWidth, session.inputHeight);
    const truth = decodeAlphaFrames(join(dir, 'turning-wide.alpha.mkv'), wide.width, wide.height);
    const { scores } = await evaluateSession(session, frames, truth, wide);
    await session.close();
    console.log(`light on turning at 2.39:1: IoU ${scores.iou.toFixed(4)}`);
    expect(scores.frames).toBe(CLIP_FRAMES);
    expect(scores.iou).toBeGreaterThanOrEqual(0.87);
  }, 2 * MINUTES);

  /**
   * A phone's upright video shown between pillarbox bars in a landscape frame: the engine finds the
   * bars on the first frame (probe, pictureInBars) and `light` gives RVM's pixels to the picture
   * (picture-rvm.ts): measured 0.982 in bench:matting, 0.917 while RVM saw the whole frame.
   */
  it("turning as a phone's upright picture between pillarbox bars: light mattes the picture at RVM's full size (IoU >= 0.95)", async () => {
    const pillarbox = 'crop=202:360,pad=640:360:219:0:black';
    const { picture, session, scores } = await scoreBetweenBars('light', 'turning', 'turning-phone', pillarbox, CLIP);
    expect(picture?.x0).toBeCloseTo(219 / 640, 1);
    expect(picture?.x1).toBeCloseTo(421 / 640, 1);
    // the picture 320 rows high in RVM (its long side), the frame around it (570 wide for the exact picture; the thumbnail's edge blends one column)
    expect(session.inputHeight).toBe(320);
    expect(Math.abs(session.inputWidth - 570)).toBeLessThanOrEqual(4);
    expect(scores.iou).toBeGreaterThanOrEqual(0.95);
  }, 2 * MINUTES);

  /**
   * A hard cut from one person to two standing elsewhere (portrait-pan's second 1 s, then
   * two-people's third): the people sessions forget the last shot's people and find the new shot's
   * on the frame after the cut (MainSubjectFinder.newShot), as `original` does. Before, the first
   * shot's choice held until the next keyframes and one of the two was dropped (`human` 0.880, both
   * for 8 frames; `light` 0.839, one to the end; `original` 0.914, 14 frames, over 2 s either side).
   * Measured over 1 s either side on a Zen 5: 0.966 / 0.979 / 0.979, and 0.909 / 0.862 / 0.841 with
   * `newShot` made to carry the old shot's tracks on.
   */
  it.each(['light', 'human', 'original'] as const)('a cut from one person to two elsewhere: %s keeps both from the frame after the cut (IoU >= 0.95)', async (model) => {
    writeCut(join(MEDIA_DIR, 'portrait-pan'), join(dir, 'two-people'), 'cut', CUT_FRAMES);
    expect((await score(model, 'cut', { frames: CUT_FRAMES })).iou).toBeGreaterThanOrEqual(0.95);
  }, 2 * MINUTES);

  /**
   * A cut between two shots of one room (out-of-frame, then two-people, the same background): the
   * luma histogram barely moves, so the cut detector rightly sees none, but the people RVM sees jump
   * (people-jump.ts) and are chosen afresh. Before, the person chosen in the first shot held and one
   * of the two was dropped until the next keyframes: over 2 s either side `light` 0.9086 (13 frames),
   * `human` 0.9495 (6), `original` 0.9726 (2); now 0.9709, 0.9785 and 0.9823. `light` and `human`
   * over 1 s either side (a Zen 5): 0.970 and 0.969, and 0.912 and 0.930 with `newShot` made to
   * carry the old shot's tracks on. `original` keeps 2 s either side, where it scores 0.982 with the
   * rule and 0.958 without; over 1 s either side 0.964 and 0.963, too close to tell. On an AVX2-only
   * AMD EPYC (6 December 2026) `human` chose on the new shot's first frame alone, where RVM saw the
   * second person too faintly, and dropped them for 8 frames: 0.890; 0.968 with the new shot's
   * people chosen after it settles (SETTLING_KEYFRAMES in main-subjects.ts); `light` 0.970 either way.
   */
  it.each([
    ['light', 0.95, CUT_FRAMES],
    ['human', 0.95, CUT_FRAMES],
    ['original', 0.975, CLIP_FRAMES],
  ] as const)('a cut within one room: %s keeps both people from the frame after the cut (IoU >= %s over %s frames)', async (model, floor, frames) => {
    writeCut(join(dir, 'out-of-frame'), join(dir, 'two-people'), `room-cut-${frames}`, frames);
    expect((await score(model, `room-cut-${frames}`, { frames })).iou).toBeGreaterThanOrEqual(floor);
  }, 2 * MINUTES);

  /**
   * `pro` asked for "person" on the same cut (2 s either side): the people's jump makes the frame one
   * of the detector's keyframes, which finds the second person there. Before, it waited for the next
   * keyframe and dropped one of the two for 2 frames: 0.9738 (0.9700 in bench:matting); now 0.9834
   * (0.9794), and again 0.9738 on a Zen 5 with the jump's keyframe left out. Over 1 s either side
   * both score 0.9616: that window would not tell.
   */
  it('a cut within one room: pro asked for "person" finds both people on the frame after the cut (IoU >= 0.978)', async () => {
    writeCut(join(dir, 'out-of-frame'), join(dir, 'two-people'), `room-cut-${CLIP_FRAMES}`, CLIP_FRAMES);
    expect((await score('pro', `room-cut-${CLIP_FRAMES}`, { textPrompt: 'person' })).iou).toBeGreaterThanOrEqual(0.978);
  }, 2 * MINUTES);

  /**
   * The picture's box, found on the first frame's coarser still, can hold a line of the bars along
   * its edges, and RVM takes people cut by the picture's edge on into it. Leaving those lines out
   * of the matte (picture-bars.ts, pictureWithoutBarEdges): two-people between letterbox bars 0.929
   * -> 0.950 in bench:matting (the people stand on the lower bar).
   */
  it('two people cut by letterbox bars: light leaves the bars out of the matte (IoU >= 0.94)', async () => {
    const letterbox = 'crop=640:268:0:46,pad=640:360:0:46:black';
    const { scores } = await scoreBetweenBars('light', 'two-people', 'two-people-letter', letterbox, CLIP);
    expect(scores.iou).toBeGreaterThanOrEqual(0.94);
  }, 2 * MINUTES);

  /**
   * portrait-pan's person before a black backdrop (their exact alpha over black), centred: the first
   * frame looks like a picture between pillarbox bars (x 0.38-0.62), and the person sways into the
   * "bars". While the bars were checked a quarter, half and three quarters across, the parts beyond
   * the picture's edges were cut off: 0.803 (0.64 on some frames); the bars now give way on the first
   * frame the person steps into them: 0.973, as seeing the whole frame from the start.
   */
  it('a person before a black backdrop is not cut off as a picture between bars: light IoU >= 0.95', async () => {
    execFileSync(ffmpegPath(), [
      '-v', 'error', '-i', join(MEDIA_DIR, 'portrait-pan.mp4'), '-i', join(MEDIA_DIR, 'portrait-pan.alpha.mkv'),
      '-filter_complex', '[0:v]format=gbrp[v];[1:v]format=gbrp[a];[v][a]blend=all_mode=multiply,format=yuv420p',
      '-c:v', 'libx264', '-crf', '18', '-pix_fmt', 'yuv420p', join(dir, 'backdrop.mp4'),
    ]);
    execFileSync(ffmpegPath(), ['-v', 'error', '-i', join(MEDIA_DIR, 'portrait-pan.alpha.mkv'), '-c:v', 'ffv1', '-pix_fmt', 'gray', join(dir, 'backdrop.alpha.mkv')]);
    const { picture, scores } = await scoreBetweenBars('light', 'backdrop', 'backdrop-centred', 'pad=654:360:7:0,crop=640:360:0:0', CLIP);
    expect(picture).toBeDefined(); // taken for bars on the first frame, as before
    expect(scores.iou).toBeGreaterThanOrEqual(0.95);
  }, 2 * MINUTES);

  /**
   * In a 1280x720 frame a phone's picture has more pixels than `human`'s 640x360 gives it (202x360):
   * `human` frames it as `light` does, RVM at 360x640 (picture-rvm.ts, openPeopleRvmSession).
   * bench:matting: 0.975 -> 0.987 (the picture scaled up 2x from the composite, so its detail is the
   * composite's).
   */
  it("turning as a phone's picture in a 1280x720 frame: human gives RVM the picture at 360x640 (IoU >= 0.98)", async () => {
    const pillarbox = 'crop=202:360:218:0,scale=406:720:flags=bicubic,pad=1280:720:438:0:black';
    const { session, scores } = await scoreBetweenBars('human', 'turning', 'turning-hd-phone', pillarbox, { width: 1280, height: 720 });
    expect(session.inputHeight).toBe(640);
    expect(scores.iou).toBeGreaterThanOrEqual(0.98);
  }, 3 * MINUTES);

  /**
   * Two people, both subjects, the second smaller and off centre: on the detector's first keyframe
   * no frame came before to measure motion by, motion counted as none for both, and the second rated
   * 0.694 of the first, under the 0.7 to be chosen: dropped until the next keyframe (`human` 0.956,
   * `light` 0.905). Motion unknown now counts as a full share for everyone (track-chooser.ts):
   * 0.984 and 0.961.
   */
  it('near-and-far: human keeps the second person from the first frame (IoU >= 0.975)', async () => {
    expect((await score('human', 'near-and-far')).iou).toBeGreaterThanOrEqual(0.975);
  }, 2 * MINUTES);

  /**
   * Keeping everyone in sight scores about 0.73 here (as `light` did); `human` keeps the main
   * subject. Measured 0.987 (0.961 before the detector's "teddy bears" that RVM fills were taken for
   * the people they are; 0.931 before a larger region no box explains was kept: the detector misses
   * the subject, seen from the back, in the first frames, and chooses the bystanders). Scored on the
   * first 2 s (`CHOICE_FRAMES`): on an Intel Xeon with AMX (4 December 2026) 0.9875 there, 0.8343
   * with the "teddy bears" left as they are (0.9114 over the whole clip); the larger region's rule
   * switched off no longer moves it (0.988 on either length): other rules now hold that case.
   */
  it('bystanders: human keeps the main subject, not the two people behind them (IoU >= 0.95 over its first 2 s)', async () => {
    expect(Object.keys(COMPOSITES)).toContain('bystanders');
    expect((await score('human', 'bystanders', { frames: CHOICE_FRAMES })).iou).toBeGreaterThanOrEqual(0.95);
  }, 3 * MINUTES);

  /**
   * The default model on people seen from behind: NanoDet calls them teddy bears, dogs and cats (a
   * person box only at low scores), and a pattern behind them an umbrella. `original` measured 0.662
   * on two-people (the "teddy bears" were cut out of ISNet's matte) and 0.567 on bystanders (the
   * unsure umbrella, the largest box, set the scale and the bystanders were chosen); now 0.985 and 0.986.
   */
  it.each(['two-people', 'bystanders'])('%s: original keeps the people RVM sees under other labels, and the main subject alone (IoU >= 0.95)', async (name) => {
    expect((await score('original', name)).iou).toBeGreaterThanOrEqual(0.95);
  }, 3 * MINUTES);

  /**
   * Real camera footage behind the subject: people walking about a square, far smaller than the
   * subject but sharp, central and moving. On those cues alone they rated 0.7 of the subject and
   * were chosen beside it: `original` 0.928 and `human` 0.929; rated down by their size
   * (subject-selector.ts), 0.990 and 0.969 (AVX2-only AMD EPYC, RVM in fp32). `human` lost frames
   * 8-27 until the tracker followed a track's motion between its keyframes 8 frames apart: a walker
   * out of their last box became a new track, chosen on one keyframe's rating (box-tracker.ts; 0.976
   * -> 0.990 on an Intel Xeon with VNNI; the tracker's own tests hold the rule). Both now score 0.990
   * here on that Xeon and on an AVX2-only AMD EPYC Zen 3 (RVM in int8 on both; bench:matting 0.9896
   * and 0.9905 / 0.9898): the floor leaves 0.01 for other CPUs' arithmetic and fails at the 0.976 of
   * a walker chosen on one keyframe. Scored on the first 2 s (`CHOICE_FRAMES`), which hold both
   * failures (the walker's lost frames were 8-27): on an Intel Xeon with AMX (4 December 2026)
   * `original` 0.9914 and `human` 0.9908 there, 0.9000 and 0.9226 with the size rule off
   * (BACKGROUND_SIZE_SHARE 0), for half the whole clip's time.
   */
  it.each(['original', 'human'] as const)('passers-by: %s keeps the subject, not the people walking behind (IoU >= 0.98 over its first 2 s)', async (model) => {
    expect((await score(model, 'passers-by', { frames: CHOICE_FRAMES })).iou).toBeGreaterThanOrEqual(0.98);
  }, 3 * MINUTES);

  /**
   * RVM takes a patch of the generated background beside her hair for the person on frames 37-80,
   * joined to her, so `human`'s main-people rule keeps it (0.948 with one pass, Intel Xeon with
   * VNNI). The small pass over the mirrored frames (rvm-session.ts, `smallMirror`) does not share
   * that error and trims it (`human` 0.972). Where RVM is sure of the patch the trim alone keeps
   * it; it is dropped where its colours are the background's too (`backgroundColours`; RVM here
   * 0.9301 alone, 0.9621 trimmed, 0.9739 with the colours on an AVX2-only AMD EPYC Zen 3, 0.9440 /
   * 0.9717 / 0.9759 on a Zen 5 with VNNI, where the trim alone leaves less: the bound asked of the
   * colours is half the smaller gain). Compared in one run, so that the CPU's arithmetic, which
   * moves every figure, is the same for all, on the clip's frames up to the patch's last
   * (`PATCH_END`): the 19 frames after it, scored alike by all three, only thinned the gains
   * (frames 0-80 on the Zen 5: 0.9384 / 0.9697 / 0.9747).
   */
  it('out-of-frame: the small pass over the mirrored frames trims the patch of background RVM joins to the person (IoU +0.01 or more), the colours drop more (+0.002)', async () => {
    const truth = decodeAlphaFrames(join(dir, 'out-of-frame.alpha.mkv'), CLIP.width, CLIP.height, PATCH_END);
    const geometry = (profile: RvmProfile) => pipelinedGeometryFor(CLIP.width, CLIP.height, profile);
    const [matter, small] = await Promise.all([RvmMatter.open(geometry(RVM_PROFILES.human), CACHE_DIR), RvmMatter.open(geometry(RVM_PROFILES.light), CACHE_DIR)]);
    const frames = decodeRgbFrames(join(dir, 'out-of-frame.mp4'), matter.width, matter.height, PATCH_END);
    const iouOf = async (session: RvmSession) => {
      const { scores } = await evaluateSession(session, frames, truth, CLIP);
      await session.close();
      return scores.iou;
    };
    const alone = await iouOf(new RvmSession(matter));
    const trimmed = await iouOf(new RvmSession(matter, { smallMirror: small }));
    const coloured = await iouOf(new RvmSession(matter, { smallMirror: small, backgroundColours: true }));
    console.log(`RVM on out-of-frame: IoU ${alone.toFixed(4)} alone, ${trimmed.toFixed(4)} with the small mirror pass, ${coloured.toFixed(4)} and the background's colours`);
    expect(trimmed).toBeGreaterThanOrEqual(alone + 0.01);
    expect(coloured).toBeGreaterThanOrEqual(trimmed + 0.002);
  }, 5 * MINUTES);
});
