/**
 * @jest-environment ./test/engine/models/support/onnx-environment.js
 * @slow
 */
import { join, resolve } from 'path';
import { loadModel } from '../../../src/engine/models';
import { RvmSession } from '../../../src/engine/models/rvm/rvm-session';
import { Matte, ModelName, SegmentationSession } from '../../../src/engine/types';
import { decodeRgbFrames, MEDIA_DIR } from './support/clips';

const CACHE_DIR = resolve(process.cwd(), '.cache/models');
const CLIP = { width: 640, height: 360, fps: 25 };
const MINUTES = 60_000;

/** the mattes of a fresh session of `model` on `frames` (all in flight at once), and how many frames RVM ran on */
async function matte(model: ModelName, frames: (size: { width: number; height: number }) => Uint8Array[]): Promise<{ mattes: Matte[]; rvmRuns: number }> {
  const session: SegmentationSession = await (await loadModel(model, { cacheDir: CACHE_DIR })).createSession(CLIP);
  const { inputWidth: width, inputHeight: height } = session;
  const rvm = (session as unknown as { rvm: RvmSession }).rvm;
  let rvmRuns = 0;
  const run = rvm.matte.bind(rvm);
  rvm.matte = (frame) => {
    rvmRuns++;
    return run(frame);
  };
  try {
    const mattes = await Promise.all(frames({ width, height }).map((data, index) => session.segment({ index, width, height, data: Buffer.from(data) })));
    return { mattes, rvmRuns };
  } finally {
    await session.close();
  }
}

describe.each<ModelName>(['light', 'human'])('%s on blank frames (a black lead-in)', (model) => {
  it('runs no RVM on them, mattes them empty, and mattes the person after them as a video that starts there', async () => {
    const person = (size: { width: number; height: number }) => decodeRgbFrames(join(MEDIA_DIR, 'portrait-pan.mp4'), size.width, size.height, 6);
    const leadIn = await matte(model, (size) => [...Array.from({ length: 6 }, () => new Uint8Array(size.width * size.height * 3)), ...person(size)]);
    const fresh = await matte(model, person);
    expect(leadIn.rvmRuns).toBe(6);
    for (const blank of leadIn.mattes.slice(0, 6)) expect(blank.data.every((alpha) => alpha === 0)).toBe(true);
    leadIn.mattes.slice(6).forEach((after, i) => expect(Buffer.from(after.data).equals(Buffer.from(fresh.mattes[i].data))).toBe(true));
  }, 3 * MINUTES);
});
