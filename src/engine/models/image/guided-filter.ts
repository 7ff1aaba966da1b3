import { boxMean } from './box-filter';

/**
 * Guided filter (He, Sun, Tang) with a gray guide: an edge-preserving smoothing of `input` whose
 * edges follow those of `guide`. Used to snap a low-resolution matte to the frame's edges.
 * `eps` sets how strong a guide edge must be to be kept (guide values in [0,1]).
 */
export function guidedFilter(guide: Float32Array, input: Float32Array, width: number, height: number, radius: number, eps: number): Float32Array {
  const n = width * height;
  const scratch = new Float32Array(n);
  const meanI = boxMean(guide, width, height, radius, new Float32Array(n), scratch);
  const meanP = boxMean(input, width, height, radius, new Float32Array(n), scratch);
  const product = new Float32Array(n);
  for (let i = 0; i < n; i++) product[i] = guide[i] * input[i];
  const corrIp = boxMean(product, width, height, radius, new Float32Array(n), scratch);
  for (let i = 0; i < n; i++) product[i] = guide[i] * guide[i];
  const corrII = boxMean(product, width, height, radius, new Float32Array(n), scratch);
  const a = corrIp; // reused in place
  const b = meanP;
  for (let i = 0; i < n; i++) {
    const variance = corrII[i] - meanI[i] * meanI[i];
    const covariance = corrIp[i] - meanI[i] * meanP[i];
    const ai = covariance / (variance + eps);
    a[i] = ai;
    b[i] = meanP[i] - ai * meanI[i];
  }
  const meanA = boxMean(a, width, height, radius, corrII, scratch);
  const meanB = boxMean(b, width, height, radius, meanI, scratch);
  const out = product;
  for (let i = 0; i < n; i++) out[i] = meanA[i] * guide[i] + meanB[i];
  return out;
}

/** BT.601 luma of packed RGB24 in [0,1] */
export function lumaOf(rgb: Uint8Array, out = new Float32Array(rgb.length / 3)): Float32Array {
  for (let i = 0, j = 0; i < out.length; i++, j += 3) out[i] = (0.299 * rgb[j] + 0.587 * rgb[j + 1] + 0.114 * rgb[j + 2]) / 255;
  return out;
}
