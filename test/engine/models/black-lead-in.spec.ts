/**
 * @jest-environment ./test/engine/models/support/onnx-environment.js
 * @slow
 *
 * A black lead-in (an edited video's first second): `light` and `human` run no model on it, and
 * `pro` keeps its subject from the first frame of picture after it, running no model before it.
 */
import { join, resolve } from 'path';
import { loadModel } from '../../../src/engine/models';
import { RvmSession } from '../../../src/engine/models/rvm/rvm-session';
import { ProSession } from '../../../src/engine/models/pro/pro-model';
import { Matte, ModelName, SegmentationSession } from '../../../src/engine/types';
import { decodeRgbFrames, MEDIA_DIR } from './support/clips';

const CACHE_DIR = resolve(process.cwd(), '.cache/models');
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
