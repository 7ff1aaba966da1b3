import { Box, boxArea, intersectionBox } from '../pro/boxes';
import { lumaByteAt } from './luma';

/** read once: a global looked up in a per-pixel loop is slow under Jest (docs/testing.md) */
const { abs, max, min } = Math;

/** a bar's pixels are this dark at most (luma, 0..255; bars are black, encoded at 16 and decoded near 0) ... */
const BAR_LUMA = 24;
/** ... and this flat across a line (a dark scene's rows have texture and grain; a bar has none) */
const BAR_SPREAD = 10;
/** bars narrower than this share of the side are not worth cropping (and may be a camera's dark edge) */
const MIN_BAR_SHARE = 0.03;
/** the two bars of a pair differ by at most this share of the side (a picture is centred between them) */
const BAR_PAIR_SLACK = 0.02;

/**
 * The picture inside letterbox bars (black above and below) or pillarbox bars (black at the sides:
 * a phone's upright video in a landscape frame), as a normalised box; undefined where the frame has
 * neither. Bars come in centred pairs of flat black lines; a dark scene's edges are neither flat
 * nor paired, and a frame that is black throughout has no picture to find.
 */
export function pictureInBars(rgb: Uint8Array, width: number, height: number): Box | undefined {
  const lines = barLines(rgb, width, height);
  const barsOf = (side: number, lineIsBar: (line: number) => boolean): [number, number] | undefined => {
    let before = 0;
    while (before < side && lineIsBar(before)) before++;
    if (before === side) return undefined;
    let after = 0;
    while (lineIsBar(side - 1 - after)) after++;
    const least = MIN_BAR_SHARE * side;
    const paired = abs(before - after) <= max(2, BAR_PAIR_SLACK * side);
    return before >= least && after >= least && paired ? [before, after] : [0, 0];
  };
  const rows = barsOf(height, lines.rowIsBar);
  if (!rows) return undefined;
  const columns = barsOf(width, lines.columnIsBar) ?? [0, 0];
  if (rows[0] + rows[1] + columns[0] + columns[1] === 0) return undefined;
  return { x0: columns[0] / width, y0: rows[0] / height, x1: (width - columns[1]) / width, y1: (height - rows[1]) / height };
}

/** whether a row or a column of the frame is a bar's: flat and black */
function barLines(rgb: Uint8Array, width: number, height: number): { rowIsBar: (y: number) => boolean; columnIsBar: (x: number) => boolean } {
  const lumaAt = (x: number, y: number) => lumaByteAt(rgb, (y * width + x) * 3);
  const isBar = (length: number, at: (i: number) => number) => {
    let [low, high] = [255, 0];
    for (let i = 0; i < length; i++) {
      const v = at(i);
      low = min(low, v);
      high = max(high, v);
      if (high > BAR_LUMA || high - low > BAR_SPREAD) return false;
    }
    return true;
  };
  return { rowIsBar: (y) => isBar(width, (x) => lumaAt(x, y)), columnIsBar: (x) => isBar(height, (y) => lumaAt(x, y)) };
}

/** a box in a frame's pixels: columns left..right-1, rows top..bottom-1 */
export interface PixelBox {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/**
 * The first frame's still is coarser than the frames, so the picture's box found on it may hold a
 * bar's line or two along its edges (where the still's pixel straddled the bar's edge); at most this
 * share of a side, two of the still's pixels (320 on its long side, probe.ts) and more
 */
const EDGE_LINES_SHARE = 0.015;

/**
 * Whether the bars around `picture` are still bars on this frame: every other line across each bar
 * is flat and black, but for the lines along the picture's edge (EDGE_LINES_SHARE: where the
 * first frame's coarser still may have put the edge a line or two off). A video whose first frame
 * had bars may go on without them (a compilation, a title card before the footage); a person before
 * a black backdrop looks like a picture between bars until they move into the "bars", and lines a
 * quarter, half and three quarters across each, the check before, saw them only once they reached
 * the first of those: a swaying person lost the parts beyond the picture's edges (IoU 0.80 against
 * 0.97 seeing the whole frame).
 */
export function barsHold(rgb: Uint8Array, width: number, height: number, picture: PixelBox): boolean {
  const { rowIsBar, columnIsBar } = barLines(rgb, width, height);
  const rows = Math.ceil(EDGE_LINES_SHARE * height);
  const columns = Math.ceil(EDGE_LINES_SHARE * width);
  const allBars = (from: number, to: number, lineIsBar: (line: number) => boolean) => {
    for (let line = from; line < to; line += 2) if (!lineIsBar(line)) return false;
    return true;
  };
  return (
    allBars(0, picture.top - rows, rowIsBar) &&
    allBars(picture.bottom + rows, height, rowIsBar) &&
    allBars(0, picture.left - columns, columnIsBar) &&
    allBars(picture.right + columns, width, columnIsBar)
  );
}

/**
 * `picture` less the lines along its edges that are still bars' lines (flat and black) on this
 * frame, on the sides that have bars, up to EDGE_LINES_SHARE of the side: a matte there is RVM
 * taking the person on to the edge of what it was shown.
 */
export function pictureWithoutBarEdges(rgb: Uint8Array, width: number, height: number, picture: PixelBox): PixelBox {
  const { rowIsBar, columnIsBar } = barLines(rgb, width, height);
  const rows = Math.ceil(EDGE_LINES_SHARE * height);
  const columns = Math.ceil(EDGE_LINES_SHARE * width);
  let { left, top, right, bottom } = picture;
  if (picture.top > 0) while (top < picture.top + rows && top < bottom - 1 && rowIsBar(top)) top++;
  if (picture.bottom < height) while (bottom > picture.bottom - rows && bottom - 1 > top && rowIsBar(bottom - 1)) bottom--;
  if (picture.left > 0) while (left < picture.left + columns && left < right - 1 && columnIsBar(left)) left++;
  if (picture.right < width) while (right > picture.right - columns && right - 1 > left && columnIsBar(right - 1)) right--;
  return { left, top, right, bottom };
}

/** the part of the frame ISNet is shown: `region` (undefined: the whole frame) inside the picture between bars, if any */
export function withinPicture(region: Box | undefined, picture: Box | undefined): Box | undefined {
  if (!picture) return region;
  if (!region) return picture;
  const inside = intersectionBox(region, picture);
  return boxArea(inside) > 0 ? inside : region;
}

/** bars are whole lines, so a picture's aspect is measured within this (log) share */
const SQUASH_SLACK = 0.02;

/**
 * The picture between bars, for a model that squashes what it is shown to a square (ISNet): only
 * where the picture alone is squashed no more than the frame with its bars. A 4:3 picture
 * between pillarbox bars is (DAVIS dog pillarboxed in 854x480, `original`: 0.875 -> 0.923, `pro`
 * "dog" 0.904 -> 0.917); a 2.39:1 picture between letterbox bars is squashed further alone, and
 * measured both ways (0.824 -> 0.853 over the clip, 0.913 -> 0.831 over its first 20 frames).
 * `aspect`: the video's (the frame may be decoded squashed), width over height.
 */
export function pictureForSquareModel(rgb: Uint8Array, width: number, height: number, aspect: number): Box | undefined {
  const picture = pictureInBars(rgb, width, height);
  if (!picture) return undefined;
  const pictureAspect = ((picture.x1 - picture.x0) / (picture.y1 - picture.y0)) * aspect;
  // no more squashed than the frame (a phone's upright frame around a 16:9 picture: the same squash, three times the rows)
  return abs(Math.log(pictureAspect)) <= abs(Math.log(aspect)) + SQUASH_SLACK ? picture : undefined;
}
