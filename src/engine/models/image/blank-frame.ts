import { Matte, RgbFrame } from '../../types';

/**
 * a frame whose luma varies less than this (standard deviation, of 255) shows nothing: black, a
 * flat colour card. Every frame of the clips in ../shared/media and DAVIS varies by 36-80; a one-second
 * fade from black over portrait-pan passes 4 within its first eighth (6.9 at its 4th frame)
 */
export const BLANK_LUMA_DEVIATION = 4;

/** a frame, packed RGB24 (RgbFrame's picture) */
export type Picture = Pick<RgbFrame, 'width' | 'height' | 'data'>;

/**
 * Whether a frame shows nothing at all (an edited video's black lead-in, a flat card): no model
 * finds a subject there. `light`, `human` (main-people-session.ts), `original` (original-model.ts)
 * and `pro` (pro-model.ts) run no model on it, and `light` and `human` do not count it toward their
 * hand-over deadline.
 * Measured as the luma's standard deviation over a grid of about 64x36 pixels, against
 * BLANK_LUMA_DEVIATION.
 */
export function isBlank(picture: Picture): boolean {
  const { width, height, data } = picture;
  const stepX = Math.max(1, Math.floor(width / 64));
  const stepY = Math.max(1, Math.floor(height / 36));
  let count = 0;
  let sum = 0;
  let squares = 0;
  for (let y = stepY >> 1; y < height; y += stepY) {
    for (let x = stepX >> 1; x < width; x += stepX) {
      const at = (y * width + x) * 3;
      const luma = 0.299 * data[at] + 0.587 * data[at + 1] + 0.114 * data[at + 2];
      count++;
      sum += luma;
      squares += luma * luma;
    }
  }
  const mean = sum / count;
  return count > 0 && squares / count - mean * mean < BLANK_LUMA_DEVIATION ** 2;
}

/** a blank frame's matte: nothing kept */
export function emptyMatte({ width, height }: { width: number; height: number }): Matte {
  return { width, height, data: new Uint8Array(width * height) };
}
