/**
 * Estimates how far the subject moved between a keyframe and the current frame: the translation
 * that best maps the keyframe's foreground pixels (luma) onto the current frame, found coarse to
 * fine with sub-pixel refinement. Cheap enough to run on every in-between frame.
 */

export interface Shift {
  dx: number;
  dy: number;
}

export interface LumaImage {
  width: number;
  height: number;
  data: Float32Array;
}

/** 2x2 mean downsampling */
export function halve(image: LumaImage): LumaImage {
  const width = image.width >> 1;
  const height = image.height >> 1;
  const data = new Float32Array(width * height);
  const src = image.data;
  const sw = image.width;
  for (let y = 0; y < height; y++) {
    const r0 = 2 * y * sw;
    const r1 = r0 + sw;
    for (let x = 0; x < width; x++) {
      const c = 2 * x;
      data[y * width + x] = 0.25 * (src[r0 + c] + src[r0 + c + 1] + src[r1 + c] + src[r1 + c + 1]);
    }
  }
  return { width, height, data };
}

/** mean |cur(p + shift) - ref(p)| over the listed reference pixels that stay inside the frame */
function matchCost(ref: LumaImage, cur: LumaImage, pixels: Int32Array, dx: number, dy: number): number {
  const w = ref.width;
  const h = ref.height;
  let sum = 0;
  let count = 0;
  for (let k = 0; k < pixels.length; k++) {
    const p = pixels[k];
    const y = (p / w) | 0;
    const x = p - y * w;
    const sx = x + dx;
    const sy = y + dy;
    if (sx < 0 || sy < 0 || sx >= w || sy >= h) continue;
    const d = cur.data[sy * w + sx] - ref.data[p];
    sum += d < 0 ? -d : d;
    count++;
  }
  return count > pixels.length / 4 ? sum / count : Infinity;
}

/** indices of the pixels where the mask is at least 0.5, every `stride`-th one */
function foregroundPixels(mask: Float32Array, stride: number): Int32Array {
  const list: number[] = [];
  for (let i = 0; i < mask.length; i += stride) if (mask[i] >= 0.5) list.push(i);
  return Int32Array.from(list);
}

function bestIntegerShift(ref: LumaImage, cur: LumaImage, pixels: Int32Array, cx: number, cy: number, range: number) {
  let best = { dx: cx, dy: cy, cost: Infinity };
  for (let dy = cy - range; dy <= cy + range; dy++)
    for (let dx = cx - range; dx <= cx + range; dx++) {
      const cost = matchCost(ref, cur, pixels, dx, dy);
      if (cost < best.cost) best = { dx, dy, cost };
    }
  return best;
}

/** vertex offset of the parabola through three costs, in [-0.5, 0.5] */
export function parabolaOffset(left: number, centre: number, right: number): number {
  const denominator = left - 2 * centre + right;
  if (!Number.isFinite(denominator) || denominator <= 0) return 0;
  return Math.max(-0.5, Math.min(0.5, (0.5 * (left - right)) / denominator));
}

/**
 * Shift of the subject from `ref` to `cur` in pixels of these images. `refMask` (same size, 0..1)
 * marks the subject in `ref`; `guess` is where to centre the search (e.g. the last shift).
 */
export function estimateSubjectShift(ref: LumaImage, refMask: Float32Array, cur: LumaImage, guess: Shift = { dx: 0, dy: 0 }, coarseRange = 8): Shift | undefined {
  const fine = foregroundPixels(refMask, 1);
  if (fine.length < 16) return undefined;
  const refSmall = halve(ref);
  const curSmall = halve(cur);
  const maskSmall = halve({ width: ref.width, height: ref.height, data: refMask }).data;
  const coarse = bestIntegerShift(refSmall, curSmall, foregroundPixels(maskSmall, 1), Math.round(guess.dx / 2), Math.round(guess.dy / 2), coarseRange);
  if (!Number.isFinite(coarse.cost)) return undefined;
  const best = bestIntegerShift(ref, cur, fine, coarse.dx * 2, coarse.dy * 2, 2);
  const cost = (dx: number, dy: number) => matchCost(ref, cur, fine, dx, dy);
  return {
    dx: best.dx + parabolaOffset(cost(best.dx - 1, best.dy), best.cost, cost(best.dx + 1, best.dy)),
    dy: best.dy + parabolaOffset(cost(best.dx, best.dy - 1), best.cost, cost(best.dx, best.dy + 1)),
  };
}

/** Moves a plane by a (sub-pixel) shift with bilinear sampling; uncovered borders repeat the edge. */
export function shiftPlane(src: Float32Array, width: number, height: number, shift: Shift, out = new Float32Array(src.length)): Float32Array {
  const fx0 = Math.floor(shift.dx);
  const fy0 = Math.floor(shift.dy);
  const fx = shift.dx - fx0;
  const fy = shift.dy - fy0;
  const clampX = (x: number) => (x < 0 ? 0 : x >= width ? width - 1 : x);
  const clampY = (y: number) => (y < 0 ? 0 : y >= height ? height - 1 : y);
  for (let y = 0; y < height; y++) {
    // out(x, y) = src(x - dx, y - dy)
    const sy0 = clampY(y - fy0 - 1);
    const sy1 = clampY(y - fy0);
    const r0 = sy0 * width;
    const r1 = sy1 * width;
    for (let x = 0; x < width; x++) {
      const sx0 = clampX(x - fx0 - 1);
      const sx1 = clampX(x - fx0);
      const top = src[r0 + sx0] * fx + src[r0 + sx1] * (1 - fx);
      const bottom = src[r1 + sx0] * fx + src[r1 + sx1] * (1 - fx);
      out[y * width + x] = top * fy + bottom * (1 - fy);
    }
  }
  return out;
}
