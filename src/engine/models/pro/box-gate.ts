import { Box } from './boxes';

/** read once: a global looked up in a per-pixel loop is slow under Jest (docs/testing.md) */
const { fround } = Math;

/**
 * A soft mask of a box on a width x height plane: 1 inside the box grown by `margin` (fraction of
 * the box's size, at least `minMargin` of the frame), ramping linearly to 0 over `feather`
 * (fraction of the frame) outside. Separable: the product of a horizontal and a vertical ramp.
 */
export interface GateShape {
  margin: number;
  minMargin: number;
  feather: number;
}

export const DEFAULT_GATE: GateShape = { margin: 0.1, minMargin: 0.02, feather: 0.03 };

function ramp(size: number, lo: number, hi: number, feather: number): Float32Array {
  const out = new Float32Array(size);
  const f = Math.max(1e-6, feather);
  for (let i = 0; i < size; i++) {
    const p = (i + 0.5) / size;
    const outside = p < lo ? lo - p : p > hi ? p - hi : 0;
    out[i] = Math.max(0, 1 - outside / f);
  }
  return out;
}

export function boxGate(box: Box, width: number, height: number, shape: GateShape = DEFAULT_GATE): Float32Array {
  const gate = new Float32Array(width * height);
  forGatedRows(box, width, height, shape, (row, gx, [x0, x1], v) => {
    for (let x = x0; x < x1; x++) gate[row + x] = v * gx[x];
  });
  return gate;
}

/**
 * `plane` times the box's gate (boxGate), the same values, worked out only where the gate is not
 * zero: a person's box covers a part of `pro`'s 1024x1024 plane, and the gate was made and applied
 * over all of it for every track every frame.
 */
export function gatePlane(plane: Float32Array, box: Box, width: number, height: number, shape: GateShape = DEFAULT_GATE): Float32Array {
  const out = new Float32Array(width * height);
  forGatedRows(box, width, height, shape, (row, gx, [x0, x1], v) => {
    for (let x = x0, o = row + x0; x < x1; x++, o++) out[o] = plane[o] * fround(v * gx[x]);
  });
  return out;
}

/**
 * A keyframe's blend inside the box's gate, in place: `fresh` = w * fresh + (1 - w) * gate * previous
 * where the gate is not zero (`fresh`, gated by the same box, is zero elsewhere and stays so).
 */
export function blendInGate(fresh: Float32Array, previous: Float32Array, w: number, box: Box, width: number, height: number, shape: GateShape = DEFAULT_GATE): void {
  forGatedRows(box, width, height, shape, (row, gx, [x0, x1], v) => {
    for (let x = x0, o = row + x0; x < x1; x++, o++) fresh[o] = w * fresh[o] + (1 - w) * fround(v * gx[x]) * previous[o];
  });
}

/** each row where the gate is not zero: its offset, the horizontal ramp, the columns where that is not zero, the row's vertical ramp */
function forGatedRows(box: Box, width: number, height: number, shape: GateShape, row: (offset: number, gx: Float32Array, columns: [number, number], v: number) => void): void {
  const mx = Math.max((box.x1 - box.x0) * shape.margin, shape.minMargin);
  const my = Math.max((box.y1 - box.y0) * shape.margin, shape.minMargin);
  const gx = ramp(width, box.x0 - mx, box.x1 + mx, shape.feather);
  const gy = ramp(height, box.y0 - my, box.y1 + my, shape.feather);
  const columns = nonZeroSpan(gx);
  if (!columns) return;
  for (let y = 0; y < height; y++) if (gy[y] !== 0) row(y * width, gx, columns, gy[y]);
}

/** [first, last + 1) of the values that are not zero (a ramp's are one run) */
function nonZeroSpan(values: Float32Array): [number, number] | undefined {
  const first = values.findIndex((v) => v !== 0);
  if (first < 0) return undefined;
  let end = values.length;
  while (values[end - 1] === 0) end--;
  return [first, end];
}

/** pixels of `plane` at or above 0.5 inside `box` (box normalised to the plane) */
export function massInBox(plane: Float32Array, width: number, height: number, box: Box): number {
  const x0 = Math.max(0, Math.floor(box.x0 * width));
  const x1 = Math.min(width, Math.ceil(box.x1 * width));
  const y0 = Math.max(0, Math.floor(box.y0 * height));
  const y1 = Math.min(height, Math.ceil(box.y1 * height));
  let count = 0;
  for (let y = y0; y < y1; y++) for (let x = x0, o = y * width + x0; x < x1; x++, o++) if (plane[o] >= 0.5) count++;
  return count;
}
