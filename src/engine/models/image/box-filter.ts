/** read once: a global looked up in a per-pixel loop is slow under Jest (docs/testing.md) */
const { max, min } = Math;

/**
 * Mean over a (2r+1)x(2r+1) window, clipped at the borders (each output divides by the number of
 * pixels actually inside the window). Two separable running-sum passes: O(width*height)
 * whatever the radius.
 */
export function boxMean(src: Float32Array, width: number, height: number, radius: number, out: Float32Array = new Float32Array(src.length), scratch: Float32Array = new Float32Array(src.length)): Float32Array {
  // horizontal running sums -> scratch
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let sum = 0;
    for (let x = 0; x < min(radius, width); x++) sum += src[row + x];
    for (let x = 0; x < width; x++) {
      const add = x + radius;
      const drop = x - radius - 1;
      if (add < width) sum += src[row + add];
      if (drop >= 0) sum -= src[row + drop];
      const count = min(add, width - 1) - max(x - radius, 0) + 1;
      scratch[row + x] = sum / count;
    }
  }
  // vertical running sums of the row means
  const colSum = new Float64Array(width);
  for (let y = 0; y < min(radius, height); y++) for (let x = 0; x < width; x++) colSum[x] += scratch[y * width + x];
  for (let y = 0; y < height; y++) {
    const add = y + radius;
    const drop = y - radius - 1;
    if (add < height) for (let x = 0, o = add * width; x < width; x++) colSum[x] += scratch[o + x];
    if (drop >= 0) for (let x = 0, o = drop * width; x < width; x++) colSum[x] -= scratch[o + x];
    const count = min(add, height - 1) - max(y - radius, 0) + 1;
    for (let x = 0, o = y * width; x < width; x++) out[o + x] = colSum[x] / count;
  }
  return out;
}
