/**
 * @jest-environment ./test/engine/models/support/onnx-environment.js
 */
import { readFileSync } from 'fs';
import { join, resolve } from 'path';
import * as tf from '@tensorflow/tfjs-core';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { loadGraphModel } from '@tensorflow/tfjs-converter';
import { iou } from '../../../src/engine/models/pro/boxes';
import { Detection, NANODET_INPUT } from '../../../src/engine/models/pro/nanodet-decode';
import { levelsOf, NanodetDetector } from '../../../src/engine/models/pro/nanodet-detector';
import { nanodetModelJsonPath } from '../../../src/engine/models/pro/nanodet-onnx';
import { decodeRgbFrames, MEDIA_DIR } from '../models/support/clips';

/**
 * NanoDet converted to ONNX (run by onnxruntime) against the TF.js graph it came from (run by
 * TensorFlow.js's CPU backend), on real frames: the same boxes, classes and scores.
 */
const CACHE_DIR = resolve(process.cwd(), '.cache/models');

async function tfjsDetector(): Promise<NanodetDetector> {
  setWasmPaths(`${join(require.resolve('@tensorflow/tfjs-backend-wasm'), '..')}/`);
  if (!(await tf.setBackend('wasm'))) throw new Error('TensorFlow.js could not start its wasm backend');
  const path = nanodetModelJsonPath();
  const json = JSON.parse(readFileSync(path, 'utf8')) as { modelTopology: object; format?: string; signature?: object; weightsManifest: { weights: tf.io.WeightsManifestEntry[] }[] };
  const weights = readFileSync(join(path, '..', 'nanodet.bin'));
  const model = await loadGraphModel({
    load: async () => ({
      modelTopology: json.modelTopology,
      format: json.format,
      signature: json.signature,
      weightSpecs: json.weightsManifest.flatMap((group) => group.weights),
      weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
    }),
  });
  return new NanodetDetector(async (input) => {
    const outputs = model.execute(tf.tensor4d(input, [1, 3, NANODET_INPUT, NANODET_INPUT])) as tf.Tensor[];
    const levels = levelsOf(await Promise.all(outputs.map(async (t) => ({ dims: t.shape, data: (await t.data()) as Float32Array }))));
    tf.dispose(outputs);
    return levels;
  });
}

const confident = (detections: Detection[]) => detections.filter((d) => d.score >= 0.3);

describe('NanoDet on onnxruntime', () => {
  it('finds the boxes TensorFlow.js finds on real footage (walkers.mp4, portrait-pan.mp4)', async () => {
    const onnx = await NanodetDetector.open(CACHE_DIR);
    const reference = await tfjsDetector();
    const clips = [
      { file: 'walkers.mp4', width: 768, height: 576 },
      { file: 'portrait-pan.mp4', width: 640, height: 360 },
    ];
    let compared = 0;
    for (const clip of clips) {
      const frames = decodeRgbFrames(join(MEDIA_DIR, clip.file), clip.width, clip.height).filter((_, i) => i % 40 === 0);
      for (const frame of frames) {
        const region = { box: { x0: 0, y0: 0, x1: 1, y1: 1 }, aspect: clip.width / clip.height };
        const expected = confident(await reference.detect(frame, clip.width, clip.height, region));
        const actual = confident(await onnx.detect(frame, clip.width, clip.height, region));
        expect(expected.length).toBeGreaterThan(0);
        for (const want of expected) {
          const match = actual.find((d) => d.cls === want.cls && iou(d.box, want.box) > 0.98);
          expect(match).toBeDefined();
          expect(Math.abs(match!.score - want.score)).toBeLessThan(0.02);
        }
        // nothing confident that TF.js does not see (scores near 0.3 may fall either side)
        for (const got of actual.filter((d) => d.score >= 0.35)) expect(expected.some((d) => d.cls === got.cls && iou(d.box, got.box) > 0.98)).toBe(true);
        compared += expected.length;
      }
    }
    console.log(`NanoDet onnxruntime vs TF.js: ${compared} confident detections matched`);
  }, 180_000);
});
