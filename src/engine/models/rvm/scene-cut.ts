/**
 * A cheap hard-cut detector for resetting recurrent state: a coarse luma histogram of each frame
 * (every 4th pixel of every 4th row), compared with the previous frame's. A cut changes the whole
 * picture at once, so the histograms barely overlap; a pan or a moving subject shifts only part
 * of the mass. Measured (320x180): within a shot at most 0.06 of the mass moves between frames on
 * every clip in ../shared/media and its DAVIS sequences; at a cut between two of them, 0.48-0.54.
 *
 * A flash, a strobe or a light switched on moves the histogram as far (0.74-0.95), but not what is
 * where: a cut is also a change of layout, the cells of a 32x18 grid correlating under
 * SAME_LAYOUT_CORRELATION with the frame before. Measured at 320x180: -0.35 to 0.43 at cuts between
 * the clips of ../shared/media and DAVIS; 0.79 to 0.98 across flashes, strobes and a light switched
 * on, each of which reset RVM's state twice (on the flash and on the frame after it) and cost
 * `light` 0.832 -> 0.751 on DAVIS breakdance-flare with a flash every 6th frame.
 */
import { lumaByteAt } from '../image/luma';

const BINS = 16;
const STEP = 4;
export const CUT_THRESHOLD = 0.3;
export const SAME_LAYOUT_CORRELATION = 0.65;
const LAYOUT = { columns: 32, rows: 18 };

/** a frame's coarse luma: its histogram, and the mean luma of LAYOUT's cells (NaN where a tiny frame leaves a cell empty) */
interface LumaSummary {
  histogram: Float32Array;
  layout: Float32Array;
}

export class SceneCutDetector {
  private previous: LumaSummary | undefined;

  /** true when `rgb` starts a new shot (never for the first frame) */
  isCut(rgb: Uint8Array, width: number, height: number): boolean {
    const summary = lumaSummary(rgb, width, height);
    const previous = this.previous;
    this.previous = summary;
    return (
      previous !== undefined &&
      histogramDistance(previous.histogram, summary.histogram) > CUT_THRESHOLD &&
      !(layoutCorrelation(previous.layout, summary.layout) >= SAME_LAYOUT_CORRELATION)
    );
  }
}

function lumaSummary(rgb: Uint8Array, width: number, height: number): LumaSummary {
  const histogram = new Float32Array(BINS);
  const layout = new Float32Array(LAYOUT.columns * LAYOUT.rows);
  const counts = new Uint32Array(layout.length);
  let count = 0;
  for (let y = 0; y < height; y += STEP) {
    const row = Math.floor((y * LAYOUT.rows) / height) * LAYOUT.columns;
    for (let x = 0; x < width; x += STEP) {
      const i = 3 * (y * width + x);
      const luma = lumaByteAt(rgb, i);
      histogram[(luma * BINS) >> 8]++;
      const cell = row + Math.floor((x * LAYOUT.columns) / width);
      layout[cell] += luma;
      counts[cell]++;
      count++;
    }
  }
  for (let b = 0; b < BINS; b++) histogram[b] /= count;
  for (let cell = 0; cell < layout.length; cell++) layout[cell] = counts[cell] > 0 ? layout[cell] / counts[cell] : NaN;
  return { histogram, layout };
}

/** the Pearson correlation of two frames' cells (those both have); NaN where either is flat */
function layoutCorrelation(a: Float32Array, b: Float32Array): number {
  let [n, sumA, sumB] = [0, 0, 0];
  for (let i = 0; i < a.length; i++) {
    if (Number.isNaN(a[i]) || Number.isNaN(b[i])) continue;
    n++;
    sumA += a[i];
    sumB += b[i];
  }
  const [meanA, meanB] = [sumA / n, sumB / n];
  let [ab, aa, bb] = [0, 0, 0];
  for (let i = 0; i < a.length; i++) {
    if (Number.isNaN(a[i]) || Number.isNaN(b[i])) continue;
    ab += (a[i] - meanA) * (b[i] - meanB);
    aa += (a[i] - meanA) ** 2;
    bb += (b[i] - meanB) ** 2;
  }
  return ab / Math.sqrt(aa * bb);
}

/** the fraction of the histogram mass that moved (half the L1 distance), 0..1 */
export function histogramDistance(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i] - b[i]);
  return sum / 2;
}
