import { Box, iou } from './boxes';

/**
 * Decoding of NanoDet's heads (GFL: per-class sigmoid scores and, per box side, a distribution
 * over REG_MAX + 1 distance bins), per feature level, then class-aware non-maximum suppression.
 */
export const NANODET_INPUT = 416;
export const NANODET_STRIDES = [8, 16, 32] as const;
export const NANODET_CLASSES = 80;
const REG_BINS = 11; // reg_max 10

export interface Detection {
  /** COCO class index (0..79) */
  cls: number;
  score: number;
  /** in detector input pixels until mapped to the frame */
  box: Box;
}

export interface LevelOutput {
  stride: number;
  /** [cells, 80] sigmoid scores, cell = row * gridWidth + column */
  scores: Float32Array;
  /** [cells, 4 * 11]: left, top, right, bottom distance distributions (logits) */
  distances: Float32Array;
}

/** expected value of the softmax over `REG_BINS` logits starting at `offset`, in stride units */
export function distributionMean(logits: Float32Array, offset: number): number {
  let max = -Infinity;
  for (let k = 0; k < REG_BINS; k++) max = Math.max(max, logits[offset + k]);
  let sum = 0;
  let weighted = 0;
  for (let k = 0; k < REG_BINS; k++) {
    const e = Math.exp(logits[offset + k] - max);
    sum += e;
    weighted += e * k;
  }
  return weighted / sum;
}

/** every (cell, class) scoring at least `minScore`, with its box in input pixels */
export function decodeLevel(level: LevelOutput, inputSize: number, minScore: number): Detection[] {
  const grid = Math.ceil(inputSize / level.stride);
  const cells = level.scores.length / NANODET_CLASSES;
  const found: Detection[] = [];
  for (let cell = 0; cell < cells; cell++) {
    const base = cell * NANODET_CLASSES;
    for (let cls = 0; cls < NANODET_CLASSES; cls++) {
      const score = level.scores[base + cls];
      if (score < minScore) continue;
      const cx = ((cell % grid) + 0.5) * level.stride;
      const cy = (Math.floor(cell / grid) + 0.5) * level.stride;
      const d = (side: number) => distributionMean(level.distances, cell * 4 * REG_BINS + side * REG_BINS) * level.stride;
      found.push({ cls, score, box: { x0: cx - d(0), y0: cy - d(1), x1: cx + d(2), y1: cy + d(3) } });
    }
  }
  return found;
}

/** greedy NMS per class: highest scores first, dropping boxes overlapping a kept one by > iouLimit */
export function nonMaxSuppression(detections: Detection[], iouLimit: number, maxDetections: number): Detection[] {
  const sorted = [...detections].sort((a, b) => b.score - a.score);
  const kept: Detection[] = [];
  for (const candidate of sorted) {
    if (kept.length >= maxDetections) break;
    if (kept.some((k) => k.cls === candidate.cls && iou(k.box, candidate.box) > iouLimit)) continue;
    kept.push(candidate);
  }
  return kept;
}
