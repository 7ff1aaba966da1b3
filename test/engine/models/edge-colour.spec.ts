/**
 * @jest-environment ./test/engine/models/support/onnx-environment.js
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildEdgeClip, EdgeClip, measureEdgeColour } from '../../../bench/matting/edge-colour';
import { loadModel } from '../../../src/engine/models';
import { MEDIA_DIR } from './support/clips';

/**
 * Colour in the soft edge of the matte, over a new colour background, against the exact answer
 * (a clip whose foreground colour is known everywhere: see bench/matting/edge-colour.ts). The
 * engine composites the source's own pixels there; RVM's predicted foreground colour ("fgr"),
 * pushed through the same encoder on its second pipe, was measured no better (human 13.13 vs
 * 13.00 levels on 25 frames, light 13.00 vs 13.95), so it is not used. This keeps that choice
 * honest and the foreground pipe working: should RVM's colour start to win, the test says so.
 */
const CACHE_DIR = resolve(process.cwd(), '.cache/models');
const FRAMES = 25;
const MINUTES = 60_000;

describe('colour in the soft edge over a colour background (light, 1 s)', () => {
  let dir: string;
  let clip: EdgeClip;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edge-colour-'));
    clip = buildEdgeClip(MEDIA_DIR, dir, FRAMES);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("the source's pixels leave no more colour error than RVM's predicted foreground, and little of it", async () => {
    const model = await loadModel('light', { cacheDir: CACHE_DIR });
    const scores = await measureEdgeColour(model, clip, dir, CACHE_DIR);
    console.log(`edge band (${scores.bandPixels} pixels): source pixels ${scores.sourcePixels.toFixed(2)}, predicted foreground ${scores.predictedForeground.toFixed(2)} (mean |error|, levels 0..255)`);
    expect(scores.bandPixels).toBeGreaterThan(50_000);
    expect(scores.sourcePixels).toBeLessThanOrEqual(scores.predictedForeground);
    // measured 13.0: the matte's own error dominates (an opaque-green bleed would be far larger)
    expect(scores.sourcePixels).toBeLessThan(16);
    expect(scores.predictedForeground).toBeLessThan(20);
  }, 3 * MINUTES);
});
