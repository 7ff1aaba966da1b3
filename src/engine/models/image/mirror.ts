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
 * `direct`'s alpha trimmed by a second opinion made on the mirror image (`mirrored`, mirrored
 * back here): where `direct` says foreground (0.5 or more) and the second opinion firmly says
 * background (under FIRM_BACKGROUND), (1 - share) x direct + share x the second opinion; `direct`
 * everywhere else. The second opinion only takes away, and only where it is sure, so that a
 * coarser one does not soften the edges `direct` has right. One value a pixel.
 */
export function trimWithMirrored(direct: Float32Array, mirrored: Float32Array, width: number, height: number, share: number): Float32Array {
  const trimmed = mirrorRows(mirrored, width, height, 1);
  for (let i = 0; i < trimmed.length; i++) {
    const own = direct[i];
    const other = trimmed[i];
    trimmed[i] = own >= 0.5 && other < FIRM_BACKGROUND ? (1 - share) * own + share * other : own;
  }
  return trimmed;
}
