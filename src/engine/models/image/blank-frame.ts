import { Matte, RgbFrame } from '../../types';

/**
 * a frame whose cells' mean luma varies less than this (standard deviation, of 255) shows nothing:
 * black, a flat colour card. Averaged over cells, a camera's noise on black does not count and a
 * dim scene's shapes do: a night shot of a dancer (DAVIS breakdance-flare through a curve to 12% of
 * its brightness) measures about 3, where the luma of single pixels, the measure before, took it for
 * blank at 4 and gave the whole clip empty mattes. Every frame of the clips in ../shared/media and
 * DAVIS varies by 30-80.
 */
export const BLANK_LUMA_DEVIATION = 1.5;

/** the grid of cells over the frame, and the lattice of pixels read in each cell */
const GRID = { columns: 32, rows: 18 };
const SAMPLES_PER_SIDE = 8;

/** a frame, packed RGB24 (RgbFrame's picture) */
export type Picture = Pick<RgbFrame, 'width' | 'height' | 'data'>;

/**
 * Whether a frame shows nothing at all (an edited video's black lead-in, a flat card): no model
 * finds a subject there. `light`, `human` (main-people-session.ts), `original` (original-model.ts)
 * and `pro` (pro-model.ts) run no model on it, and `light` and `human` do not count it toward their
 * hand-over deadline.
 * Measured as the standard deviation of the mean luma of GRID's cells (each read on a lattice of
 * SAMPLES_PER_SIDE x SAMPLES_PER_SIDE pixels), against BLANK_LUMA_DEVIATION.
 */
export function isBlank(picture: Picture): boolean {
  return cellLumaDeviation(picture) < BLANK_LUMA_DEVIATION;
}

/** the standard deviation of the cells' mean luma (isBlank) */
function cellLumaDeviation({ width, height, data }: Picture): number {
  const columns = Math.min(GRID.columns, width);
  const rows = Math.min(GRID.rows, height);
  let sum = 0;
  let squares = 0;
  for (let row = 0; row < rows; row++) {
    const top = Math.floor((row * height) / rows);
    const cellHeight = Math.floor(((row + 1) * height) / rows) - top;
    for (let column = 0; column < columns; column++) {
      const left = Math.floor((column * width) / columns);
      const cellWidth = Math.floor(((column + 1) * width) / columns) - left;
      const [down, across] = [Math.min(SAMPLES_PER_SIDE, cellHeight), Math.min(SAMPLES_PER_SIDE, cellWidth)];
      let cell = 0;
      for (let sy = 0; sy < down; sy++) {
        const y = top + Math.floor(((sy + 0.5) * cellHeight) / down);
        for (let sx = 0; sx < across; sx++) {
          const at = (y * width + left + Math.floor(((sx + 0.5) * cellWidth) / across)) * 3;
          cell += 0.299 * data[at] + 0.587 * data[at + 1] + 0.114 * data[at + 2];
        }
      }
      const mean = cell / (down * across);
      sum += mean;
      squares += mean * mean;
    }
  }
  const cells = columns * rows;
  return Math.sqrt(Math.max(0, squares / cells - (sum / cells) ** 2));
}

/** a blank frame's matte: nothing kept */
export function emptyMatte({ width, height }: { width: number; height: number }): Matte {
  return { width, height, data: new Uint8Array(width * height) };
}
