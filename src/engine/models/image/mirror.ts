import { Plane, taps } from './resample';

/** Left-right mirroring of packed images: `channels` values a pixel, rows of `width` pixels. */
export function mirrorRows<T extends Uint8Array | Float32Array>(data: T, width: number, height: number, channels: number, out?: T): T {
  if (data.length !== width * height * channels) throw new RangeError(`expected ${width}x${height}x${channels} values, got ${data.length}`);
  // a plain typed array even for a Buffer (whose constructor called with a length is deprecated)
  const mirrored = out ?? ((data instanceof Float32Array ? new Float32Array(data.length) : new Uint8Array(data.length)) as T);
  const row = width * channels;
  for (let y = 0; y < height; y++) {
    const start = y * row;
    for (let x = 0; x < width; x++) {
      const from = start + x * channels;
      const to = start + (width - 1 - x) * channels;
      for (let c = 0; c < channels; c++) mirrored[to + c] = data[from + c];
    }
  }
  return mirrored;
}

/** (direct + mirror image of `mirrored`) / 2, per value: the mean of two predictions, one made on the mirrored image */
export function meanWithMirrored(direct: Float32Array, mirrored: Float32Array, width: number, height: number, channels: number): Float32Array {
  const mean = mirrorRows(mirrored, width, height, channels);
  for (let i = 0; i < mean.length; i++) mean[i] = (mean[i] + direct[i]) / 2;
  return mean;
}

/** the second opinion's alpha under which it firmly says background (`trimWithMirrored`) */
export const FIRM_BACKGROUND = 0.25;

/**
 * `direct`'s alpha trimmed by a second opinion made on the mirror image (`mirrored`, at any size:
 * mirrored back and scaled up to `direct`'s as resample.ts's resizePlane does): where `direct` says
 * foreground (0.5 or more) and the second opinion firmly says background (under FIRM_BACKGROUND),
 * (1 - share) x direct + share x the second opinion; `direct` everywhere else. The second opinion
 * only takes away, and only where it is sure, so that a coarser one does not soften the edges
 * `direct` has right. One value a pixel. It is scaled up only at the pixels `direct` calls
 * foreground, where it can trim (the whole plane scaled up, mirrored, then trimmed took about 2.3 ms
 * a frame of the engine's own thread at 640x360, this about 0.5). `trimmedAt`, when given, gets the
 * index of each pixel trimmed.
 */
export function trimWithMirrored(direct: Float32Array, mirrored: Plane<Float32Array>, width: number, height: number, share: number, trimmedAt?: number[]): Float32Array {
  const trimmed = Float32Array.from(direct);
  const xs = taps(mirrored.width, width);
  const ys = taps(mirrored.height, height);
  const s = mirrored.data;
  for (let y = 0; y < height; y++) {
    const top = ys.lo[y] * mirrored.width;
    const bottom = ys.hi[y] * mirrored.width;
    const fy = ys.frac[y];
    for (let x = 0, i = y * width; x < width; x++, i++) {
      const own = direct[i];
      if (own < 0.5) continue;
      // the mirror image's column, scaled up as resizePlane does (in doubles, stored as float32)
      const m = width - 1 - x;
      const lo = xs.lo[m];
      const hi = xs.hi[m];
      const fx = xs.frac[m];
      const upper = s[top + lo] + (s[top + hi] - s[top + lo]) * fx;
      const lower = s[bottom + lo] + (s[bottom + hi] - s[bottom + lo]) * fx;
      const other = Math.fround(upper + (lower - upper) * fy);
      if (other < FIRM_BACKGROUND) {
        trimmed[i] = (1 - share) * own + share * other;
        trimmedAt?.push(i);
      }
    }
  }
  return trimmed;
}
