/**
 * Matte quality scores from the video-matting literature, computed over every frame of a clip.
 * Mattes and ground truth are 8-bit alpha (0..255) of the same size.
 */

/** read once: a global looked up in a per-pixel loop is slow under Jest (docs/testing.md) */
const { abs } = Math;

export interface MatteScores {
  frames: number;
  /** mean over frames of the IoU of the masks binarised at alpha 0.5 */
  iou: number;
  /** mean |pred - truth| with alpha in [0,1], x1e-3 */
  mad: number;
  /** flicker: mean |(pred_t - pred_t-1) - (truth_t - truth_t-1)|, alpha in [0,1], x1e-3 */
  dtssd: number;
}

/** alpha >= 128 counts as foreground (alpha/255 >= 0.5) */
const HALF = 128;

/** IoU of two alpha mattes binarised at 0.5; 1 when both are empty. */
export function binaryIou(pred: Uint8Array, truth: Uint8Array): number {
  assertSameSize(pred, truth);
  return maskIou(pred, truth, HALF);
}

/** IoU of two planes of one size, each binarised at `threshold` (in the planes' own scale); 1 when both are empty */
export function maskIou(a: ArrayLike<number>, b: ArrayLike<number>, threshold: number): number {
  let intersection = 0;
  let union = 0;
  for (let i = 0; i < a.length; i++) {
    const p = a[i] >= threshold;
    const q = b[i] >= threshold;
    if (p && q) intersection++;
    if (p || q) union++;
  }
  return union === 0 ? 1 : intersection / union;
}

/** mean absolute difference of two mattes, alpha in [0,1] (not scaled) */
export function meanAbsoluteDifference(pred: Uint8Array, truth: Uint8Array): number {
  assertSameSize(pred, truth);
  let sum = 0;
  for (let i = 0; i < pred.length; i++) sum += abs(pred[i] - truth[i]);
  return pred.length === 0 ? 0 : sum / pred.length / 255;
}

/** mean |(pred - prevPred) - (truth - prevTruth)|, alpha in [0,1] (not scaled) */
export function temporalDifferenceError(pred: Uint8Array, prevPred: Uint8Array, truth: Uint8Array, prevTruth: Uint8Array): number {
  assertSameSize(pred, truth);
  assertSameSize(pred, prevPred);
  assertSameSize(truth, prevTruth);
  let sum = 0;
  for (let i = 0; i < pred.length; i++) sum += abs(pred[i] - prevPred[i] - (truth[i] - prevTruth[i]));
  return pred.length === 0 ? 0 : sum / pred.length / 255;
}

/** Accumulates the scores frame by frame, so a clip never has to be held in memory. */
export class MatteScorer {
  /** each frame's IoU at 0.5, in order */
  readonly frameIous: number[] = [];
  private frames = 0;
  private iouSum = 0;
  private madSum = 0;
  private dtssdSum = 0;
  private dtssdFrames = 0;
  private previous?: { pred: Uint8Array; truth: Uint8Array };

  addFrame(pred: Uint8Array, truth: Uint8Array): void {
    const iou = binaryIou(pred, truth);
    this.frameIous.push(iou);
    this.iouSum += iou;
    this.madSum += meanAbsoluteDifference(pred, truth);
    if (this.previous) {
      this.dtssdSum += temporalDifferenceError(pred, this.previous.pred, truth, this.previous.truth);
      this.dtssdFrames++;
    }
    this.previous = { pred: Uint8Array.from(pred), truth: Uint8Array.from(truth) };
    this.frames++;
  }

  scores(): MatteScores {
    return {
      frames: this.frames,
      iou: this.frames ? this.iouSum / this.frames : 0,
      mad: this.frames ? (this.madSum / this.frames) * 1000 : 0,
      dtssd: this.dtssdFrames ? (this.dtssdSum / this.dtssdFrames) * 1000 : 0,
    };
  }
}

function assertSameSize(a: Uint8Array, b: Uint8Array): void {
  if (a.length !== b.length) throw new RangeError(`mattes differ in size (${a.length} vs ${b.length})`);
}
