import { resizePlane } from '../image/resample';
import { gateSize, labelRegions } from '../pro/region-gate';

/**
 * What a chosen person holds, rides or stands on (a board under the arm, a bike): RVM's matte is
 * trained on people and drops it; ISNet sees it as part of the same salient object. Kept, at the
 * gate's small size (region-gate.ts), are ISNet's confident regions (`SURE`, after an opening that
 * removes thin structures: poles, lines) that
 * - overlap the person: at least `ON_PERSON` of such a region is RVM's person, so the region is
 *   the person with something attached, not a background object the person stands before;
 * - lie near them: within `REACH` of the person's extent;
 * - persist: the part outside the person (the object) must have been there, moved with the
 *   person (the shift of the person's centroid), on the previous frame for `PERSIST` of its
 *   pixels. A carried object moves with its carrier; a wall, a crowd or a sign ISNet merges with
 *   the person for a frame does not.
 *
 * Measured on the DAVIS people sequences (offline, on the planes `original` computes, 640x360):
 * kite-walk 0.608 -> 0.693 (the board), rollerblade 0.852 -> 0.846, swing 0.815 -> 0.818,
 * breakdance-flare 0.846 -> 0.846, bmx-trees 0.501 -> 0.502. Without the persistence test ISNet's
 * extra regions are as often background as an object (rollerblade 0.78, swing 0.77).
 */
export const SURE = 0.8;
export const ON_PERSON = 0.5;
export const REACH = 0.25;
export const PERSIST = 0.8;
/** small-size pixels the previous frame's object may have moved besides the person's shift */
const SLACK = 2;

export class CarriedObjects {
  private previous?: { mask: Uint8Array; cx: number; cy: number };

  reset(): void {
    this.previous = undefined;
  }

  /**
   * 0..1 weights at `width` x `height` of the pixels of `salient` that are carried by the person
   * in `person` (the kept people matte), or undefined where there are none
   */
  extend(person: Float32Array, salient: Float32Array, width: number, height: number): Float32Array | undefined {
    const small = gateSize(width, height);
    const w = small.width;
    const h = small.height;
    const p = resizePlane({ width, height, data: person }, w, h);
    const s = resizePlane({ width, height, data: salient }, w, h);
    const pm = new Uint8Array(w * h);
    let count = 0;
    let sx = 0;
    let sy = 0;
    let x0 = w;
    let y0 = h;
    let x1 = -1;
    let y1 = -1;
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        if (p[y * w + x] < 0.5) continue;
        pm[y * w + x] = 1;
        count++;
        sx += x;
        sy += y;
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
    }
    if (count === 0) {
      this.previous = undefined;
      return undefined;
    }
    const cx = sx / count;
    const cy = sy / count;
    const sure = new Uint8Array(w * h);
    for (let i = 0; i < sure.length; i++) sure[i] = s[i] >= SURE ? 1 : 0;
    const opened = dilate(erode(sure, w, h, 1), w, h, 1);
    const { labels, sizes } = labelRegions(opened, w, h);
    const onPerson = new Array<number>(sizes.length).fill(0);
    for (let i = 0; i < labels.length; i++) if (labels[i] && pm[i]) onPerson[labels[i]]++;
    const reach = REACH * Math.max(x1 - x0 + 1, y1 - y0 + 1);
    const object = new Uint8Array(w * h);
    for (let y = 0; y < h; y++) {
      if (y < y0 - reach || y > y1 + reach) continue;
      for (let x = 0; x < w; x++) {
        const i = y * w + x;
        const label = labels[i];
        if (!label || pm[i] || x < x0 - reach || x > x1 + reach) continue;
        if (onPerson[label] >= ON_PERSON * sizes[label]) object[i] = 1;
      }
    }
    const before = this.previous;
    this.previous = { mask: object, cx, cy };
    if (!before) return undefined;
    const moved = dilate(shift(before.mask, w, h, Math.round(cx - before.cx), Math.round(cy - before.cy)), w, h, SLACK);
    const parts = labelRegions(object, w, h);
    const persisting = new Array<number>(parts.sizes.length).fill(0);
    for (let i = 0; i < object.length; i++) if (parts.labels[i] && moved[i]) persisting[parts.labels[i]]++;
    const kept = new Uint8Array(w * h);
    let any = false;
    for (let i = 0; i < kept.length; i++) {
      const label = parts.labels[i];
      if (label && persisting[label] >= PERSIST * parts.sizes[label]) kept[i] = 1;
      any ||= kept[i] === 1;
    }
    if (!any) return undefined;
    const grown = dilate(kept, w, h, 1);
    return resizePlane({ width: w, height: h, data: Float32Array.from(grown) }, width, height);
  }
}

function shift(mask: Uint8Array, width: number, height: number, dx: number, dy: number): Uint8Array {
  const out = new Uint8Array(mask.length);
  for (let y = 0; y < height; y++) {
    const ty = y + dy;
    if (ty < 0 || ty >= height) continue;
    for (let x = 0; x < width; x++) {
      const tx = x + dx;
      if (tx >= 0 && tx < width && mask[y * width + x]) out[ty * width + tx] = 1;
    }
  }
  return out;
}

/** max (dilate) or min (erode) over a (2r+1)^2 square */
function morph(mask: Uint8Array, width: number, height: number, radius: number, grow: boolean): Uint8Array {
  const out = new Uint8Array(mask.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let value = grow ? 0 : 1;
      for (let dy = -radius; dy <= radius && value === (grow ? 0 : 1); dy++) {
        const ny = Math.min(height - 1, Math.max(0, y + dy));
        for (let dx = -radius; dx <= radius; dx++) {
          const nx = Math.min(width - 1, Math.max(0, x + dx));
          const v = mask[ny * width + nx];
          if (grow ? v : !v) {
            value = grow ? 1 : 0;
            break;
          }
        }
      }
      out[y * width + x] = value;
    }
  }
  return out;
}

export const dilate = (mask: Uint8Array, width: number, height: number, radius: number) => morph(mask, width, height, radius, true);
export const erode = (mask: Uint8Array, width: number, height: number, radius: number) => morph(mask, width, height, radius, false);
