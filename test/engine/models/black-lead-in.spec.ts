/**
 * @jest-environment ./test/engine/models/support/onnx-environment.js
 * @slow
 *
 * A black lead-in (an edited video's first second): `light` and `human` run no model on it, and
 * `pro` keeps its subject from the first frame of picture after it, running no model before it, and
 * keeps who is who through a dip to black.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'path';
import { loadModel } from '../../../src/engine/models';
import { RvmSession } from '../../../src/engine/models/rvm/rvm-session';
import { ProSession } from '../../../src/engine/models/pro/pro-model';
import { H, W, writePromptComposite } from '../../../bench/matting/prompt-composites';
import { evaluateSession, matteAtSize, surveyFrames } from '../../../src/engine/quality/evaluate-session';
import { isBlank } from '../../../src/engine/models/image/blank-frame';
import { binaryIou } from '../../../src/engine/quality/metrics';
import { Matte, ModelName, SegmentationSession } from '../../../src/engine/types';
import { decodeAlphaFrames, decodeRgbFrames, ffmpegPath, MEDIA_DIR } from './support/clips';

const CACHE_DIR = resolve(process.cwd(), '.cache/models');
const PROMPT_CLIPS_DIR = resolve(process.cwd(), '.cache/prompt-composites');
const CLIP = { width: 640, height: 360, fps: 25 };
const MINUTES = 60_000;

/** what a fresh session of `model` made of `frames` (all in flight at once): its mattes, and how many frames RVM ran on (`light`, `human`) */
interface Matted {
  mattes: Matte[];
  rvmRuns: number;
  session: SegmentationSession;
}

async function matte(model: ModelName, frames: (size: { width: number; height: number }) => Uint8Array[], textPrompt?: string): Promise<Matted> {
  const session: SegmentationSession = await (await loadModel(model, { cacheDir: CACHE_DIR })).createSession({ ...CLIP, textPrompt });
  const { inputWidth: width, inputHeight: height } = session;
  let rvmRuns = 0;
  const rvm = (session as unknown as { rvm?: RvmSession }).rvm;
  if (rvm) {
    const run = rvm.matte.bind(rvm);
    rvm.matte = (frame) => {
      rvmRuns++;
      return run(frame);
    };
  }
  try {
    const mattes = await Promise.all(frames({ width, height }).map((data, index) => session.segment({ index, width, height, data: Buffer.from(data) })));
    return { mattes, rvmRuns, session };
  } finally {
    await session.close();
  }
}

const blackFrames = (count: number) => (size: { width: number; height: number }) => Array.from({ length: count }, () => new Uint8Array(size.width * size.height * 3));
const portraitPan = (count: number) => (size: { width: number; height: number }) => decodeRgbFrames(join(MEDIA_DIR, 'portrait-pan.mp4'), size.width, size.height, count);

describe.each<ModelName>(['light', 'human'])('%s on blank frames (a black lead-in)', (model) => {
  it('runs no RVM on them, mattes them empty, and mattes the person after them as a video that starts there', async () => {
    const leadIn = await matte(model, (size) => [...blackFrames(6)(size), ...portraitPan(6)(size)]);
    const fresh = await matte(model, portraitPan(6));
    expect(leadIn.rvmRuns).toBe(6);
    for (const blank of leadIn.mattes.slice(0, 6)) expect(blank.data.every((alpha) => alpha === 0)).toBe(true);
    leadIn.mattes.slice(6).forEach((after, i) => expect(Buffer.from(after.data).equals(Buffer.from(fresh.mattes[i].data))).toBe(true));
  }, 3 * MINUTES);
});

/**
 * A night shot: DAVIS breakdance-flare through a curve to 12% of its brightness, the dancer plain to
 * see. Every frame measured blank by the luma of single pixels (deviation 2.8-3.6 under 4), and the
 * clip came out wholly transparent (IoU 0); over cells (blank-frame.ts) none is, and `light`
 * measured 0.535 over the clip, as with no blank rule at all.
 */
it('light on a night shot: no frame is taken for blank, and the dancer is kept (IoU >= 0.4 over the first 24 frames)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'night-'));
  try {
    const night = join(dir, 'night.mp4');
    execFileSync(ffmpegPath(), ['-v', 'error', '-i', join(MEDIA_DIR, 'davis', 'breakdance-flare.mp4'), '-frames:v', '24', '-vf', "curves=all='0/0 0.5/0.03 1/0.12'", '-c:v', 'libx264', '-crf', '18', '-pix_fmt', 'yuv420p', night]);
    const size = { width: 854, height: 480, fps: 24 };
    const session = await (await loadModel('light', { cacheDir: CACHE_DIR })).createSession(size);
    const frames = decodeRgbFrames(night, session.inputWidth, session.inputHeight);
    expect(frames.every((data) => !isBlank({ width: session.inputWidth, height: session.inputHeight, data: Buffer.from(data) }))).toBe(true);
    const truth = decodeAlphaFrames(join(MEDIA_DIR, 'davis', 'breakdance-flare.alpha.mkv'), size.width, size.height, 24);
    const { scores } = await evaluateSession(session, frames, truth, size);
    await session.close();
    console.log(`light on a night shot of breakdance-flare: IoU ${scores.iou.toFixed(4)}`);
    expect(scores.iou).toBeGreaterThanOrEqual(0.4);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 2 * MINUTES);

describe('pro on a black lead-in', () => {
  it('runs no model on it and keeps the person asked for from the first picture, as a video that starts there', async () => {
    const leadIn = await matte('pro', (size) => [...blackFrames(5)(size), ...portraitPan(3)(size)], 'person');
    const fresh = await matte('pro', portraitPan(3), 'person');
    const kept = leadIn.mattes.map((m) => m.data.filter((alpha) => alpha >= 128).length / m.data.length);
    // 5 black frames: the detector's next keyframe by its interval would be frame 8
    expect(kept.slice(0, 5)).toEqual([0, 0, 0, 0, 0]);
    for (const share of kept.slice(5)) expect(share).toBeGreaterThan(0.05);
    const session = leadIn.session as ProSession;
    // the detector on the first picture alone; RVM on the three pictures (the person is tracked from the first)
    expect([session.detectorRuns, session.peopleFrames]).toEqual([(fresh.session as ProSession).detectorRuns, 3]);
    leadIn.mattes.slice(5).forEach((after, i) => expect(Buffer.from(after.data).equals(Buffer.from(fresh.mattes[i].data))).toBe(true));
  }, 3 * MINUTES);
});

describe('pro through a dip to black', () => {
  it('"person wearing red jacket": the tracks kept through the black frames take the two people back as they cross, so the red one stays shown', async () => {
    const { video, truths } = writePromptComposite('red-blue', PROMPT_CLIPS_DIR);
    const FRAMES = 36;
    const DIP = [24, 25, 26, 27, 28];
    const session = await (await loadModel('pro', { cacheDir: CACHE_DIR })).createSession({ width: W, height: H, fps: 25, textPrompt: 'person wearing red jacket' });
    const { inputWidth: width, inputHeight: height } = session;
    const frames = decodeRgbFrames(video, width, height, FRAMES).map((frame, i) => (DIP.includes(i) ? new Uint8Array(frame.length) : frame));
    const red = decodeAlphaFrames(truths[1], W, H, FRAMES);
    const shown: Uint8Array[] = [];
    const truth: Uint8Array[] = [];
    try {
      await surveyFrames(session, frames);
      for (const [index, data] of frames.entries()) {
        const matte = matteAtSize(await session.segment({ index, width, height, data: Buffer.from(data) }), W, H);
        if (DIP.includes(index)) {
          expect(matte.every((alpha) => alpha === 0)).toBe(true);
        } else {
          shown.push(matte);
          truth.push(red[index]);
        }
      }
    } finally {
      await session.close();
    }
    // pooled over the pictures: 0.939 measured. 0.755 where the black frames ended the tracks: the two
    // people came back as new tracks while crossing, too crowded to judge, and the red one was lost.
    // 0.744 where the detector ran on the black frames (before blank frames were skipped).
    const iou = binaryIou(Buffer.concat(shown), Buffer.concat(truth));
    console.log(`pro "person wearing red jacket" through a dip to black: IoU ${iou.toFixed(4)}`);
    expect(iou).toBeGreaterThan(0.9);
  }, 5 * MINUTES);
});
