/**
 * @jest-environment ./test/engine/models/support/onnx-environment.js
 * @slow
 */
import { join, resolve } from 'path';
import { loadModel } from '../../../src/engine/models';
import { toAlphaBytes } from '../../../src/engine/models/image/resample';
import { SelfieSegmenter } from '../../../src/engine/models/selfie/selfie-segmenter';
import { selfieInputSizeFor } from '../../../src/engine/models/selfie/selfie-size';
import { evaluateSession, matteAtSize, SessionEvaluation } from '../../../src/engine/quality/evaluate-session';
import { MatteScorer, MatteScores } from '../../../src/engine/quality/metrics';
import { ModelName } from '../../../src/engine/types';
import { decodeAlphaFrames, decodeRgbFrames, MEDIA_DIR } from './support/clips';

/**
 * Full-clip acceptance checks: every frame of the clip through a session, scored against the
 * exact alpha the clip was composited from. Floors from the product's targets.
 */
const CACHE_DIR = resolve(process.cwd(), '.cache/models');
const CLIP = { width: 640, height: 360, fps: 25 };

async function evaluate(model: ModelName, clip: string): Promise<SessionEvaluation & { keyframes?: number; notes: string[] }> {
  const session = await (await loadModel(model, { cacheDir: CACHE_DIR })).createSession(CLIP);
  const frames = decodeRgbFrames(join(MEDIA_DIR, `${clip}.mp4`), session.inputWidth, session.inputHeight);
  const truth = decodeAlphaFrames(join(MEDIA_DIR, `${clip}.alpha.mkv`), CLIP.width, CLIP.height);
  expect(frames.length).toBe(truth.length);
  const result = await evaluateSession(session, frames, truth, CLIP);
  await session.close();
  const keyframes = (session as { keyframes?: number }).keyframes;
  const { iou, mad, dtssd, frames: count } = result.scores;
  console.log(
    `${model} on ${clip}: IoU ${iou.toFixed(4)}  MAD ${mad.toFixed(2)}  dtSSD ${dtssd.toFixed(2)}  ` +
      `${result.msPerFrame.toFixed(1)} ms/frame over ${count} frames at ${session.inputWidth}x${session.inputHeight}` +
      (keyframes !== undefined ? `  (${keyframes} ISNet keyframes)` : ''),
  );
  return { ...result, keyframes, notes: session.notes };
}

/** timeouts here guard against a hang, not speed: whole clips on a shared 2-core machine take minutes */
const MINUTES = 60_000;

/** MediaPipe's selfie model frame by frame, no memory: the flicker a per-frame model has */
async function perFrameSelfieScores(clip: string): Promise<MatteScores> {
  const size = selfieInputSizeFor(CLIP.width, CLIP.height);
  const selfie = await SelfieSegmenter.open('square', CACHE_DIR, size);
  const frames = decodeRgbFrames(join(MEDIA_DIR, `${clip}.mp4`), size.width, size.height);
  const truth = decodeAlphaFrames(join(MEDIA_DIR, `${clip}.alpha.mkv`), CLIP.width, CLIP.height);
  const scorer = new MatteScorer();
  for (const [i, rgb] of frames.entries()) {
    const matte = { ...size, data: toAlphaBytes(await selfie.probabilities(rgb)) };
    scorer.addFrame(matteAtSize(matte, CLIP.width, CLIP.height), truth[i]);
  }
  await selfie.close();
  return scorer.scores();
}

describe('segmentation quality on the test clips', () => {
  it('light: portrait-pan IoU >= 0.85', async () => {
    const { scores } = await evaluate('light', 'portrait-pan');
    expect(scores.frames).toBe(100);
    expect(scores.iou).toBeGreaterThanOrEqual(0.85);
  }, 2 * MINUTES);

  // person-aware since issue 15: the person's matte is RVM's (0.972 measured; ISNet alone gave
  // 0.98 here, and 0.42-0.53 on real footage of people); the floor is 0.95
  it('original: portrait-pan IoU >= 0.95 with ISNet on at most a third of the frames', async () => {
    const { scores, keyframes } = await evaluate('original', 'portrait-pan');
    expect(scores.iou).toBeGreaterThanOrEqual(0.95);
    // speed target ~0.6 s/frame on an idle 2-core machine (ISNet 1024 in int8 takes ~0.7 s there); wall
    // time on shared CI machines is too noisy to assert, so the cost is checked by its driver
    expect(keyframes).toBeLessThanOrEqual(Math.ceil(scores.frames / 3));
  }, 10 * MINUTES);

  // measured 0.957 (MAD 3.9, dtSSD 2.8): the floor for `original` is 0.95 on both composites
  it('original: car-slide IoU >= 0.95', async () => {
    const { scores } = await evaluate('original', 'car-slide');
    expect(scores.iou).toBeGreaterThanOrEqual(0.95);
  }, 10 * MINUTES);

  it("human: portrait-pan IoU >= 0.97, MAD <= 5, and less flicker than a per-frame model's", async () => {
    const { scores } = await evaluate('human', 'portrait-pan');
    expect(scores.iou).toBeGreaterThanOrEqual(0.97);
    expect(scores.mad).toBeLessThanOrEqual(5);
    const perFrame = await perFrameSelfieScores('portrait-pan');
    console.log(`per-frame selfie on portrait-pan: IoU ${perFrame.iou.toFixed(4)}  dtSSD ${perFrame.dtssd.toFixed(2)}`);
    expect(scores.dtssd).toBeLessThan(perFrame.dtssd);
  }, 10 * MINUTES);

  it("pro: without text_prompt keeps the main subject and says so in the session's notes", async () => {
    const model = await loadModel('pro', { cacheDir: CACHE_DIR });
    expect(model.name).toBe('pro');
    const session = await model.createSession(CLIP);
    expect(session.notes.join(' ')).toMatch(/keeping the main subject/);
    const frame = decodeRgbFrames(join(MEDIA_DIR, 'portrait-pan.mp4'), session.inputWidth, session.inputHeight)[0];
    const matte = await session.segment({ index: 0, width: session.inputWidth, height: session.inputHeight, data: Buffer.from(frame) });
    expect(matte.data.length).toBe(matte.width * matte.height);
    await session.close();
  }, 2 * MINUTES);

  it('loads each model once per process', async () => {
    expect(await loadModel('light', { cacheDir: CACHE_DIR })).toBe(await loadModel('light', { cacheDir: CACHE_DIR }));
  });
});
