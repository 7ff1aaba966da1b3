/**
 * @jest-environment ./test/engine/models/support/onnx-environment.js
 * @slow
 */
import { resolve } from 'path';
import { PROMPT_COMPOSITES, W, H, writePromptComposite } from '../../../bench/matting/prompt-composites';
import { loadModel } from '../../../src/engine/models';
import { ISNET_EXPORT_SIZE } from '../../../src/engine/models/isnet/isnet-graph';
import { SurveyedProSession } from '../../../src/engine/models/pro/surveyed-session';
import { matteAtSize, surveyFrames } from '../../../src/engine/quality/evaluate-session';
import { SegmentationSession } from '../../../src/engine/types';
import { decodeAlphaFrames, decodeRgbFrames } from '../models/support/clips';

/**
 * `pro`'s prompts with attributes on composites with exact alpha (bench/matting/prompt-composites.ts,
 * made once under .cache/): each prompt is surveyed and segmented as the engine does it, and scored
 * against the named subjects' own alpha. Floors: the other subject's area leaked < 2% over the
 * clip, and in no frame is the other subject the one shown (no flip); the named subjects' IoU
 * floor is per case (the issue asks 0.9; see CASES for what is measured, and why where it is under).
 */
const CACHE_DIR = resolve(process.cwd(), '.cache/models');
const CLIPS_DIR = resolve(process.cwd(), '.cache/prompt-composites');
const CLIP = { width: W, height: H, fps: 25 };
const MINUTES = 60_000;
const HALF = 128;

interface PromptCase {
  clip: keyof typeof PROMPT_COMPOSITES;
  prompt: string;
  /** indices of the clip's subjects (PROMPT_COMPOSITES[clip].subjects) the prompt names */
  named: number[];
  /**
   * the named subjects' IoU floor: the issue asks 0.9; where a case holds less, what is measured
   * and why is said beside it
   */
  iouFloor: number;
  /** how many of the clip's first frames the case runs on */
  frames: number;
}

/**
 * One prompt per clip, to keep the suite short (a prompt with attributes runs `pro` twice: the
 * survey, then the output). The crossing clip (red-blue) runs through the API instead, with the official
 * Python client's "person wearing red jacket" (test/e2e/pro-prompt.e2e.spec.ts); on all its 60
 * frames "the woman in blue" measured IoU 0.904 and a leak of 0.24% (prompt-diagnose; README).
 */
const CASES: PromptCase[] = [
  // measured 0.913 (0.738 before the tracker weighed the detector's scores, ISNet saw the kept dog
  // alone on keyframes and ran on every frame while the dog changes shape; 0.917 with ISNet between
  // keyframes in the survey too, at 1.5 times the CPU)
  { clip: 'two-dogs', prompt: 'the biggest dog', named: [0], iouFloor: 0.9, frames: 60 },
  // measured 0.914 (0.896 with ISNet on the detector's keyframes only): pro's mattes of the two; no
  // attribute, so one pass (its first 24 frames score 0.774 while the detector confirms the two)
  { clip: 'person-car', prompt: 'the man and his car', named: [0, 1], iouFloor: 0.9, frames: 60 },
];

/** a surveying session run as the engine runs it: every frame surveyed, then segmented */
async function runPrompt(prompt: string, frames: readonly Uint8Array[]): Promise<{ mattes: Uint8Array[]; session: SegmentationSession }> {
  const started = performance.now();
  const session = await (await loadModel('pro', { cacheDir: CACHE_DIR })).createSession({ ...CLIP, textPrompt: prompt });
  const frameAt = (index: number) => ({ index, width: session.inputWidth, height: session.inputHeight, data: Buffer.from(frames[index].buffer, frames[index].byteOffset, frames[index].byteLength) });
  await surveyFrames(session, frames);
  const mattes: Uint8Array[] = [];
  for (let i = 0; i < frames.length; i++) {
    mattes.push(matteAtSize(await session.segment(frameAt(i)), W, H));
    // the output pass shows the survey's tracks: the ones the prompt's choice was made on
    if (session instanceof SurveyedProSession) expect(session.output.tracks).toEqual(session.surveyed[i].tracks);
  }
  await session.close();
  console.log(`pro "${prompt}": ${frames.length} frames surveyed and segmented in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { mattes, session };
}

interface Scores {
  /** the named subjects against the matte, pooled over the clip */
  iou: number;
  /** share of the other subjects' area the matte covers, pooled over the clip */
  leak: number;
  /**
   * per frame, over the frames where a subject shows at least a quarter of its median visible area
   * (not hidden behind the other): the worst cover of the named subjects, and of the others
   */
  worstNamedCover: number;
  worstOtherCover: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

function score(mattes: readonly Uint8Array[], truths: readonly Uint8Array[][], named: readonly number[]): Scores {
  let intersection = 0;
  let union = 0;
  let leaked = 0;
  let otherArea = 0;
  const perFrame: { named: number; namedCovered: number; others: number; othersCovered: number }[] = [];
  mattes.forEach((matte, f) => {
    let namedArea = 0;
    let namedCovered = 0;
    let others = 0;
    let othersCovered = 0;
    for (let p = 0; p < matte.length; p++) {
      const shown = matte[p] >= HALF;
      const isNamed = named.some((k) => truths[k][f][p] >= HALF);
      const isOther = !isNamed && truths.some((truth, k) => !named.includes(k) && truth[f][p] >= HALF);
      if (isNamed) namedArea++;
      if (isNamed && shown) namedCovered++;
      if (isNamed || shown) union++;
      if (isOther) others++;
      if (isOther && shown) othersCovered++;
    }
    intersection += namedCovered;
    leaked += othersCovered;
    otherArea += others;
    perFrame.push({ named: namedArea, namedCovered, others, othersCovered });
  });
  const namedMedian = median(perFrame.map((f) => f.named));
  const othersMedian = median(perFrame.map((f) => f.others));
  const worstNamedCover = Math.min(1, ...perFrame.filter((f) => f.named > 0 && f.named >= namedMedian / 4).map((f) => f.namedCovered / f.named));
  const worstOtherCover = Math.max(0, ...perFrame.filter((f) => f.others > 0 && f.others >= othersMedian / 4).map((f) => f.othersCovered / f.others));
  return { iou: union ? intersection / union : 1, leak: otherArea ? leaked / otherArea : 0, worstNamedCover, worstOtherCover };
}

describe('pro keeps the subjects a prompt describes, decided once for the clip', () => {
  const clips = new Map<string, { frames: Uint8Array[]; truths: Uint8Array[][] }>();

  beforeAll(() => {
    for (const clip of new Set(CASES.map((c) => c.clip))) {
      const paths = writePromptComposite(clip, CLIPS_DIR);
      clips.set(clip, { frames: decodeRgbFrames(paths.video, ISNET_EXPORT_SIZE, ISNET_EXPORT_SIZE), truths: paths.truths.map((truth) => decodeAlphaFrames(truth, W, H)) });
    }
  }, 2 * MINUTES);

  it.each(CASES)('$clip, "$prompt" (first $frames frames)', async ({ clip, prompt, named, iouFloor, frames: count }) => {
    const { frames, truths } = clips.get(clip)!;
    const { mattes, session } = await runPrompt(prompt, frames.slice(0, count));
    const s = score(
      mattes,
      truths.map((truth) => truth.slice(0, count)),
      named,
    );
    console.log(`pro "${prompt}" on ${clip}: IoU ${s.iou.toFixed(4)}, other subject leaked ${(100 * s.leak).toFixed(2)}%, worst frame: named covered ${(100 * s.worstNamedCover).toFixed(1)}%, other covered ${(100 * s.worstOtherCover).toFixed(1)}%\n  notes: ${session.notes.join(' | ')}`);
    expect(s.iou).toBeGreaterThanOrEqual(iouFloor);
    expect(s.leak).toBeLessThan(0.02);
    // no flip: in no frame is the other subject shown (a named one lost behind the other is not a flip)
    expect(s.worstOtherCover).toBeLessThan(0.5);
  }, 10 * MINUTES);

  it('person-car, "car": the car on every frame, where ISNet shown the whole frame takes the person, not found by the detector there, for the salient object (first 12 frames)', async () => {
    const { frames, truths } = clips.get('person-car')!;
    const count = 12;
    const { mattes } = await runPrompt('car', frames.slice(0, count));
    const s = score(
      mattes,
      truths.map((truth) => truth.slice(0, count)),
      [0],
    );
    console.log(`pro "car" on person-car, ${count} frames: IoU ${s.iou.toFixed(4)}, the person leaked ${(100 * s.leak).toFixed(2)}%, worst frame: the car covered ${(100 * s.worstNamedCover).toFixed(1)}%`);
    // frames 4-7 lost the car whole (covered 0%) before ISNet was shown the region around it there
    expect(s.worstNamedCover).toBeGreaterThan(0.6);
    expect(s.iou).toBeGreaterThan(0.8);
    expect(s.leak).toBeLessThan(0.02);
  }, 10 * MINUTES);
});
