import { COLOUR_NAMES, colourIndex } from './colour-names';

/** read once: a global looked up in a per-pixel loop is slow under Jest (docs/testing.md) */
const { max, min, round } = Math;

/**
 * Where a left-out subject stands in a kept one's matte, a pixel of a colour both wear (hair,
 * skin, a cap) goes with the one whose own colours surround it: it is dropped when, in a window of
 * ±`LOCAL_VOTE_REACH.x` of the frame's width and ±`LOCAL_VOTE_REACH.y` of its height, pixels of
 * the left-out one's colours outnumber the kept one's (and are more than `LOCAL_VOTE_MIN`). The
 * window is tall because people are: a head's colours go with the clothing below it. It applies
 * anywhere in the kept matte, not only in the left-out one's box: a person half hidden behind the
 * other is missed by the detector, and the held box drifts (the red-blue composite, frames 37-39).
 * On the red-blue crossing composite (60 frames): "person wearing red jacket" IoU 0.918 and the
 * blue person's share of the matte 1.99% with a ±0.06 x ±0.06 window inside the left-out boxes
 * only (2.9% without the vote); 0.921 / 1.64% with the tall window there; 0.923 / 1.51% with it
 * anywhere (±0.03 x ±0.2: 1.53%, ±0.06 x ±0.15: 1.58%). "the woman in blue": 0.903 / 0.47% ->
 * 0.904 / 0.17%.
 */
const LOCAL_VOTE_REACH = { x: 0.04, y: 0.12 };
const LOCAL_VOTE_MIN = 40;

/** a colour belongs to the other subject: a real share of its colours, and at least twice the kept one's share */
function theirs(colour: number, own: Float64Array, other: Float64Array): boolean {
  return other[colour] >= 0.05 && other[colour] >= 2 * own[colour];
}

/**
 * The kept subject's `matte` (changed in place and returned) without what is the left-out
 * subjects': pixels whose colour name is clearly theirs (`others`: shares of COLOUR_NAMES in their
 * own mattes) and not the kept one's (`own`), and pixels of shared colours that their colours
 * surround (see `LOCAL_VOTE_REACH`).
 */
export function withoutTheirColours(matte: Float32Array, rgb: Uint8Array, width: number, height: number, colours: { own: Float64Array; others: readonly Float64Array[] }): Float32Array {
  const side = colourSides(matte, rgb, colours.own, colours.others);
  const votes = localVotes(side, width, height, round(LOCAL_VOTE_REACH.x * width), round(LOCAL_VOTE_REACH.y * height));
  for (let i = 0; i < matte.length; i++) {
    if (matte[i] === 0) continue;
    if (side[i] < 0) matte[i] = 0;
    else if (side[i] === 0) {
      const x = i % width;
      const y = (i - x) / width;
      const against = votes.theirs(x, y);
      if (against > LOCAL_VOTE_MIN && against > votes.ours(x, y)) matte[i] = 0;
    }
  }
  return matte;
}

/** per pixel: -1 a colour clearly one of the others', 1 clearly the kept one's against every other, 0 shared or not in the matte */
function colourSides(matte: Float32Array, rgb: Uint8Array, own: Float64Array, others: readonly Float64Array[]): Int8Array {
  // the side depends on the colour name alone: decided once per name
  const sideOf = Int8Array.from(COLOUR_NAMES, (_, colour) => (others.some((c) => theirs(colour, own, c)) ? -1 : others.every((c) => theirs(colour, c, own)) ? 1 : 0));
  const side = new Int8Array(matte.length);
  for (let i = 0; i < matte.length; i++) if (matte[i] >= 0.5) side[i] = sideOf[colourIndex(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2])];
  return side;
}

/** how many pixels of each side lie in the (2rx+1) x (2ry+1) window around a pixel, from two summed-area tables */
function localVotes(side: Int8Array, width: number, height: number, rx: number, ry: number): { ours(x: number, y: number): number; theirs(x: number, y: number): number } {
  const counter = (wanted: number) => {
    const sums = new Int32Array((width + 1) * (height + 1));
    for (let y = 0; y < height; y++) {
      let row = 0;
      for (let x = 0; x < width; x++) {
        if (side[y * width + x] === wanted) row++;
        sums[(y + 1) * (width + 1) + x + 1] = sums[y * (width + 1) + x + 1] + row;
      }
    }
    return (x: number, y: number) => {
      const x0 = max(0, x - rx);
      const y0 = max(0, y - ry);
      const x1 = min(width, x + rx + 1);
      const y1 = min(height, y + ry + 1);
      return sums[y1 * (width + 1) + x1] - sums[y0 * (width + 1) + x1] - sums[y1 * (width + 1) + x0] + sums[y0 * (width + 1) + x0];
    };
  };
  return { ours: counter(1), theirs: counter(-1) };
}
