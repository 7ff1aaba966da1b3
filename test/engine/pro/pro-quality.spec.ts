/**
 * @jest-environment ./test/engine/models/support/onnx-environment.js
 * @slow
 */
import { join, resolve } from 'path';
import { loadModel } from '../../../src/engine/models';
import { NO_PROMPT_NOTE, noKnownSubjectNote, ProSession } from '../../../src/engine/models/pro/pro-model';
import { evaluateSession, matteAtSize } from '../../../src/engine/quality/evaluate-session';
import { MatteScorer } from '../../../src/engine/quality/metrics';
import { decodeAlphaFrames, decodeRgbFrames, MEDIA_DIR } from '../models/support/clips';
import { COMPOSITE, compositeRgbFrames, compositeTruth } from './support/composite';

/**
 * `pro` on real clips with real models (NanoDet + ISNet), scored against the clips' exact alpha.
 * A subject named in the prompt is kept; one that is not there leaves a fully transparent result.
 */
const CACHE_DIR = resolve(process.cwd(), '.cache/models');
const CLIP = { width: 640, height: 360, fps: 25 };
/** timeouts here guard against a hang, not speed: whole clips on a shared 2-core machine take minutes */
const MINUTES = 60_000;

async function proSession(textPrompt: string, size = CLIP): Promise<ProSession> {
  return (await loadModel('pro', { cacheDir: CACHE_DIR })).createSession({ ...size, textPrompt }) as Promise<ProSession>;
}

function frameOf(session: ProSession, index: number, data: Uint8Array) {
  return { index, width: session.inputWidth, height: session.inputHeight, data: Buffer.from(data.buffer, data.byteOffset, data.byteLength) };
}

async function scoreClip(clip: string, prompt: string, frameLimit?: number) {
  const session = await proSession(prompt);
  const frames = decodeRgbFrames(join(MEDIA_DIR, `${clip}.mp4`), session.inputWidth, session.inputHeight, frameLimit);
  const truth = decodeAlphaFrames(join(MEDIA_DIR, `${clip}.alpha.mkv`), CLIP.width, CLIP.height);
  const result = await evaluateSession(session, frames, truth, CLIP);
  const { iou, mad, dtssd } = result.scores;
  console.log(`pro "${prompt}" on ${clip}: IoU ${iou.toFixed(4)}  MAD ${mad.toFixed(2)}  dtSSD ${dtssd.toFixed(2)}  ${result.msPerFrame.toFixed(0)} ms/frame  (${session.keyframes} ISNet keyframes, ${session.detectorRuns} detector runs)`);
  return { ...result, session };
}

const DAVIS_SIZE = { width: 854, height: 480, fps: 24 };

/** `pro` on the first `count` frames of a DAVIS sequence, fed as the engine feeds them */
async function scoreDavis(sequence: string, prompt: string, count: number) {
  const session = await proSession(prompt, DAVIS_SIZE);
  const frames = decodeRgbFrames(join(MEDIA_DIR, `davis/${sequence}.mp4`), session.inputWidth, session.inputHeight, count);
  const truth = decodeAlphaFrames(join(MEDIA_DIR, `davis/${sequence}.alpha.mkv`), DAVIS_SIZE.width, DAVIS_SIZE.height, count);
  return { ...(await evaluateSession(session, frames, truth, DAVIS_SIZE)), session };
}

/**
 * A subject that is not there: a second of the clip (the detector runs on every 4th frame) is
 * enough to show nothing is kept. The others run the first 40 frames (10 detector keyframes): `pro`'s
 * whole-clip quality tests are the prompt composites' (pro-prompts.spec.ts, composites.spec.ts).
 */
const ABSENT_FRAMES = 28;
const PREFIX_FRAMES = 40;
/**
 * `pro` without a prompt is `original` (ProModel): 12 frames hold three of the detector's keyframes
 * (every 4th frame) and ISNet's runs between them, enough to show the same mattes; `original`'s floor
 * on car-slide is its whole-clip test (models/quality.spec.ts). Measured 0.925 on these frames, where
 * the car enters the frame (on an AVX2-only EPYC, alone: 40 frames took 71 s, 12 take 27)
 */
const SAME_AS_ORIGINAL_FRAMES = 12;

/** runs the first `ABSENT_FRAMES` frames and returns the largest alpha value of any frame's matte */
async function largestAlpha(clip: string, prompt: string): Promise<{ max: number; session: ProSession }> {
  const session = await proSession(prompt);
  const frames = decodeRgbFrames(join(MEDIA_DIR, `${clip}.mp4`), session.inputWidth, session.inputHeight, ABSENT_FRAMES);
  let max = 0;
  for (let i = 0; i < frames.length; i++) {
    const matte = await session.segment(frameOf(session, i, frames[i]));
    for (const v of matte.data) if (v > max) max = v;
  }
  console.log(`pro "${prompt}" on ${clip}: largest alpha ${max} over ${frames.length} frames (${session.keyframes} ISNet keyframes, ${session.detectorRuns} detector runs)`);
  return { max, session };
}

describe('pro keeps only the subjects named in the prompt', () => {
  it('car-slide, "car": keeps the car over the first 40 frames (IoU >= 0.93; measured 0.953, 0.956 on the whole clip as original)', async () => {
    const { scores, session } = await scoreClip('car-slide', 'car', PREFIX_FRAMES);
    expect(scores.frames).toBe(PREFIX_FRAMES);
    expect(scores.iou).toBeGreaterThanOrEqual(0.93);
    expect(session.notes).toContain('pro: keeping car');
  }, 10 * MINUTES);

  it('DAVIS car-roundabout, "car": ISNet runs at the pace of the near car (every 2nd frame), not of the small cars far off that it keeps too, and keeps the near car (IoU >= 0.96)', async () => {
    const count = 24;
    const { scores, session } = await scoreDavis('car-roundabout', 'car', count);
    console.log(`pro "car" on DAVIS car-roundabout, ${count} frames: IoU ${scores.iou.toFixed(4)}, ${session.tracks.length} cars tracked, ISNet on ${session.keyframes} frames`);
    expect(session.tracks.length).toBeGreaterThanOrEqual(4);
    // measured 13 of 24; 21 where each due car counted (every frame from the 7th on)
    expect(session.keyframes).toBeLessThanOrEqual(15);
    expect(scores.iou).toBeGreaterThanOrEqual(0.96);
  }, 10 * MINUTES);

  it('DAVIS rollerblade, "person": keeps the skater from the first frame, which NanoDet scores under the score that starts a track, as RVM sees them there (IoU >= 0.85 on the first 8 frames)', async () => {
    const { scores, frameIous } = await scoreDavis('rollerblade', 'person', 8);
    console.log(`pro "person" on DAVIS rollerblade, frames 0-7: IoU ${frameIous.map((v) => v.toFixed(2)).join(' ')}, all ${scores.iou.toFixed(4)}`);
    // measured 0.9029, every frame 0.84 or more (0.4349 before: frames 0-3 at 0.00, the skater scored 0.33 on frame 0)
    expect(Math.min(...frameIous)).toBeGreaterThanOrEqual(0.8);
    expect(scores.iou).toBeGreaterThanOrEqual(0.85);
  }, 5 * MINUTES);

  it('DAVIS dog, "dog": the dog coming nearer between the detector\'s keyframes, ISNet shown the region around it sees all of it (IoU >= 0.87 on frames 36-47, where it grows)', async () => {
    const { frameIous } = await scoreDavis('dog', 'dog', 48);
    const growing = frameIous.slice(36);
    const mean = growing.reduce((sum, v) => sum + v, 0) / growing.length;
    console.log(`pro "dog" on DAVIS dog, frames 36-47: IoU ${growing.map((v) => v.toFixed(2)).join(' ')}, mean ${mean.toFixed(4)}`);
    // measured 0.883 (0.858 where the region was the boxes' alone: frame 39 0.56 against 0.70)
    expect(mean).toBeGreaterThanOrEqual(0.87);
  }, 10 * MINUTES);

  it("car-slide, no prompt: is original, mattes and all, keeping the car (IoU >= 0.9 over the first 12 frames), and says so", async () => {
    const [pro, original] = await Promise.all([
      (await loadModel('pro', { cacheDir: CACHE_DIR })).createSession(CLIP),
      (await loadModel('original', { cacheDir: CACHE_DIR })).createSession(CLIP),
    ]);
    expect([pro.inputWidth, pro.inputHeight]).toEqual([original.inputWidth, original.inputHeight]);
    const frames = decodeRgbFrames(join(MEDIA_DIR, 'car-slide.mp4'), pro.inputWidth, pro.inputHeight, SAME_AS_ORIGINAL_FRAMES);
    const truth = decodeAlphaFrames(join(MEDIA_DIR, 'car-slide.alpha.mkv'), CLIP.width, CLIP.height, SAME_AS_ORIGINAL_FRAMES);
    const scorer = new MatteScorer();
    for (const [index, data] of frames.entries()) {
      const frame = { index, width: pro.inputWidth, height: pro.inputHeight, data: Buffer.from(data) };
      const [ours, theirs] = [await pro.segment(frame), await original.segment(frame)];
      expect(Buffer.from(ours.data).equals(Buffer.from(theirs.data))).toBe(true);
      scorer.addFrame(matteAtSize(ours, CLIP.width, CLIP.height), truth[index]);
    }
    await Promise.all([pro.close(), original.close()]);
    const { iou, frames: scored } = scorer.scores();
    console.log(`pro without a prompt on car-slide: the mattes of original on ${scored} frames, IoU ${iou.toFixed(4)}`);
    expect(scored).toBe(SAME_AS_ORIGINAL_FRAMES);
    expect(iou).toBeGreaterThanOrEqual(0.9);
    expect(pro.notes).toEqual([NO_PROMPT_NOTE]);
  }, 5 * MINUTES);

  /** the original service takes any prompt: one naming nothing the detector knows is matted as no prompt is, and says so (it was refused) */
  it('car-slide, "the guitar, product": the mattes of original, and a note naming the words', async () => {
    const [pro, original] = await Promise.all([
      (await loadModel('pro', { cacheDir: CACHE_DIR })).createSession({ ...CLIP, textPrompt: 'the guitar, product' }),
      (await loadModel('original', { cacheDir: CACHE_DIR })).createSession(CLIP),
    ]);
    const frames = decodeRgbFrames(join(MEDIA_DIR, 'car-slide.mp4'), pro.inputWidth, pro.inputHeight, 2);
    for (const [index, data] of frames.entries()) {
      const frame = { index, width: pro.inputWidth, height: pro.inputHeight, data: Buffer.from(data) };
      expect(Buffer.from((await pro.segment(frame)).data).equals(Buffer.from((await original.segment(frame)).data))).toBe(true);
    }
    await Promise.all([pro.close(), original.close()]);
    expect(pro.notes).toEqual([noKnownSubjectNote('the guitar, product')]);
    expect(pro.notes[0]).toMatch(/guitar, product.*main subject/);
  }, 2 * MINUTES);

  it.each(['', '   \t\n ', '!!!...,,,'])('a prompt of no words (%j) is no prompt, and its note says so (it said the prompt named no subject it knew)', async (textPrompt) => {
    const pro = await (await loadModel('pro', { cacheDir: CACHE_DIR })).createSession({ ...CLIP, textPrompt });
    expect(pro.notes).toEqual([NO_PROMPT_NOTE]);
    await pro.close();
  });

  it('car-slide, "person": fully transparent, and ISNet never runs', async () => {
    const { max, session } = await largestAlpha('car-slide', 'the person');
    expect(max).toBe(0);
    expect(session.keyframes).toBe(0);
    expect(session.detectorRuns).toBe(ABSENT_FRAMES / 4);
    expect(session.peopleFrames).toBe(ABSENT_FRAMES / 4); // RVM on the detector's keyframes alone
  }, 2 * MINUTES);

  // `human` (the same RVM) has its whole-clip test on portrait-pan in models/quality.spec.ts
  it('portrait-pan, "person": keeps the person (IoU >= 0.95) with one identity throughout, and ISNet does not run (people alone)', async () => {
    const session = await proSession('a woman, sparkles');
    const frames = decodeRgbFrames(join(MEDIA_DIR, 'portrait-pan.mp4'), session.inputWidth, session.inputHeight, PREFIX_FRAMES);
    const truth = decodeAlphaFrames(join(MEDIA_DIR, 'portrait-pan.alpha.mkv'), CLIP.width, CLIP.height);
    const scorer = new MatteScorer();
    const ids = new Set<number>();
    for (let i = 0; i < frames.length; i++) {
      const matte = await session.segment(frameOf(session, i, frames[i]));
      scorer.addFrame(matteAtSize(matte, CLIP.width, CLIP.height), truth[i]);
      for (const track of session.tracks) ids.add(track.id);
      expect(session.tracks.length).toBeGreaterThan(0); // never flashes out
    }
    const { iou, mad, dtssd } = scorer.scores();
    console.log(`pro "a woman, sparkles" on portrait-pan: IoU ${iou.toFixed(4)}  MAD ${mad.toFixed(2)}  dtSSD ${dtssd.toFixed(2)}  (${session.keyframes} ISNet keyframes)`);
    expect(iou).toBeGreaterThanOrEqual(0.95);
    expect([...ids]).toHaveLength(1);
    expect(session.keyframes).toBe(0);
    expect(session.peopleFrames).toBe(PREFIX_FRAMES); // a person tracked throughout: RVM on every frame, its state carried
    expect(session.notes).toEqual(['pro: keeping person', 'text_prompt: ignored unknown words: sparkles']);
  }, 8 * MINUTES); // RVM on every frame (ISNet does not run: only people in sight), on a shared 2-core machine

  it('portrait-pan, "car": fully transparent', async () => {
    const { max } = await largestAlpha('portrait-pan', 'cars');
    expect(max).toBe(0);
  }, 2 * MINUTES);

  describe('two subjects in one frame (car-slide stacked above portrait-pan), first second', () => {
    const FRAMES = 25;
    let frames: Uint8Array[] = [];

    async function scoreComposite(prompt: string, subject: 'car' | 'person') {
      const session = await proSession(prompt, COMPOSITE);
      if (frames.length === 0) frames = compositeRgbFrames(session.inputWidth, session.inputHeight, FRAMES);
      const own = compositeTruth(subject, FRAMES);
      const other = compositeTruth(subject === 'car' ? 'person' : 'car', FRAMES);
      const scorer = new MatteScorer();
      let otherKept = 0;
      let otherArea = 0;
      for (let i = 0; i < frames.length; i++) {
        const matte = matteAtSize(await session.segment(frameOf(session, i, frames[i])), COMPOSITE.width, COMPOSITE.height);
        scorer.addFrame(matte, own[i]);
        for (let p = 0; p < matte.length; p++) {
          if (other[i][p] < 128) continue;
          otherArea++;
          if (matte[p] >= 128) otherKept++;
        }
      }
      const scores = scorer.scores();
      const leak = otherKept / otherArea;
      console.log(`pro "${prompt}" on the composite: IoU ${scores.iou.toFixed(4)} against the ${subject}, ${(100 * leak).toFixed(2)}% of the other subject kept (${session.keyframes} ISNet keyframes)`);
      return { scores, leak };
    }

    it('"person" keeps only the person', async () => {
      const { scores, leak } = await scoreComposite('person', 'person');
      expect(scores.frames).toBe(FRAMES);
      expect(scores.iou).toBeGreaterThanOrEqual(0.9);
      expect(leak).toBeLessThan(0.01);
    }, 8 * MINUTES);

    // measured 0.878 (0.59 before ISNet was shown a crop around the car when the person is in
    // sight: whole, the stacked frame's salient object is the person and the car was missed)
    it('"car" keeps only the car', async () => {
      const { scores, leak } = await scoreComposite('car', 'car');
      expect(scores.frames).toBe(FRAMES);
      expect(scores.iou).toBeGreaterThanOrEqual(0.85);
      expect(leak).toBeLessThan(0.01);
    }, 3 * MINUTES);
  });
});
