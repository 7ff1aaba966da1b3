import { LumaImage, parabolaOffset, Shift } from './subject-motion';

// Module-level names for the globals the per-pixel loops read: a global is looked up on every use,
// and where the global object is a sandbox's (Jest runs tests in a vm context) that lookup made
// these loops 20-40x slower than under plain Node.
const { abs, ceil, floor, hypot, max, min, round } = Math;
const NONE = Number.POSITIVE_INFINITY;

/**
 * A motion field of the subject between a keyframe and a later frame: where each small block of
 * the keyframe's foreground went, found by matching the block's foreground pixels alone (so the
 * background behind a moving edge does not pull the edge with it), and carried outward from the
 * subject to the rest of the frame. A subject that changes shape (legs, a turning car, a rider)
 * follows it where one translation for the whole subject drifts.
 */
export interface MotionField {
  /** block size in pixels of the luma images it was measured on */
  block: number;
  columns: number;
  rows: number;
  /** each block's displacement from the keyframe to the frame, in luma pixels */
  dx: Float32Array;
  dy: Float32Array;
}

/** 4x4 blocks matched over the 8x8 window around them, at the motion estimate's size (320 px wide for 640) */
const BLOCK = 4;
const WINDOW = 8;
/** search range around the subject's translation, in luma pixels */
const RANGE = 4;
/** cost of a block's motion departing from the subject's translation, per pixel of departure (luma 0..1 per pixel) */
const SMOOTHNESS = 0.002;
/** a block is matched where at least this share of its window is foreground */
const FOREGROUND_SHARE = 0.25;
/** the offsets searched, nearest the subject's translation first (ties go to the nearer, and a good match early cuts the others short) */
const SEARCH = Array.from({ length: (2 * RANGE + 1) ** 2 }, (_, i) => ({ dx: (i % (2 * RANGE + 1)) - RANGE, dy: floor(i / (2 * RANGE + 1)) - RANGE })).sort(
  (a, b) => hypot(a.dx, a.dy) - hypot(b.dx, b.dy),
);
/** how many rings of blocks around the matched ones take their motion (beyond: the subject's translation) */
const FILL_RINGS = 4;
/** below this the warped plane is zero (less than half a step of an 8-bit matte) */
const NEGLIGIBLE = 1 / 512;

/**
 * The field from `ref` (whose subject is `refMask` >= 0.5, same size) to `cur`, searched around the
 * subject's translation `around`. Blocks with too little foreground take their neighbours' motion;
 * with none matched anywhere, the whole field is `around`.
 */
export function estimateForegroundFlow(ref: LumaImage, refMask: Float32Array, cur: LumaImage, around: Shift): MotionField {
  const { width, height } = ref;
  const columns = ceil(width / BLOCK);
  const rows = ceil(height / BLOCK);
  const field: MotionField = { block: BLOCK, columns, rows, dx: new Float32Array(columns * rows), dy: new Float32Array(columns * rows) };
  const matched = new Uint8Array(columns * rows);
  const pixels = new Int32Array(WINDOW * WINDOW * 2);
  for (let row = 0; row < rows; row++) {
    for (let column = 0; column < columns; column++) {
      const motion = matchBlock(ref, refMask, cur, column * BLOCK + BLOCK / 2, row * BLOCK + BLOCK / 2, around, pixels);
      if (!motion) continue;
      field.dx[row * columns + column] = motion.dx;
      field.dy[row * columns + column] = motion.dy;
      matched[row * columns + column] = 1;
    }
  }
  medianOfMatched(field.dx, matched, columns, rows);
  medianOfMatched(field.dy, matched, columns, rows);
  fillOutward(field, matched, around);
  return field;
}

/**
 * Where the block centred at (cx, cy) of `ref` went in `cur`: the offset near `around` whose
 * foreground pixels match best, to sub-pixel; undefined where the window has too little foreground
 * or none of it lands inside the frame. `pixels` is scratch space.
 */
function matchBlock(ref: LumaImage, refMask: Float32Array, cur: LumaImage, cx: number, cy: number, around: Shift, pixels: Int32Array): Shift | undefined {
  const { width, height } = ref;
  const count = foregroundInWindow(refMask, width, height, cx, cy, pixels);
  if (count < 4) return undefined;
  const centreX = round(around.dx);
  const centreY = round(around.dy);
  // the window moved anywhere in the search stays inside the frame
  const inside = cx - WINDOW / 2 + centreX - RANGE >= 0 && cx + WINDOW / 2 + centreX + RANGE <= width && cy - WINDOW / 2 + centreY - RANGE >= 0 && cy + WINDOW / 2 + centreY + RANGE <= height;
  let best = NONE;
  let bestX = 0;
  let bestY = 0;
  for (const candidate of SEARCH) {
    const dx = centreX + candidate.dx;
    const dy = centreY + candidate.dy;
    const penalty = SMOOTHNESS * hypot(dx - around.dx, dy - around.dy);
    const cost = windowCost(ref, cur, pixels, count, dx, dy, inside, best - penalty) + penalty;
    if (cost >= best) continue;
    best = cost;
    bestX = dx;
    bestY = dy;
  }
  if (best === NONE) return undefined;
  // sub-pixel: the vertex of the parabola through the costs beside the best offset, on each axis
  const costAt = (dx: number, dy: number) => windowCost(ref, cur, pixels, count, dx, dy, false, NONE);
  const centre = costAt(bestX, bestY);
  return {
    dx: bestX + parabolaOffset(costAt(bestX - 1, bestY), centre, costAt(bestX + 1, bestY)),
    dy: bestY + parabolaOffset(costAt(bestX, bestY - 1), centre, costAt(bestX, bestY + 1)),
  };
}

/** the window's foreground pixels as (x, y) pairs in `pixels`; how many, or 0 where they are too few a share */
function foregroundInWindow(mask: Float32Array, width: number, height: number, cx: number, cy: number, pixels: Int32Array): number {
  let inside = 0;
  let count = 0;
  for (let y = max(0, cy - WINDOW / 2); y < min(height, cy + WINDOW / 2); y++) {
    for (let x = max(0, cx - WINDOW / 2); x < min(width, cx + WINDOW / 2); x++) {
      inside++;
      if (mask[y * width + x] < 0.5) continue;
      pixels[2 * count] = x;
      pixels[2 * count + 1] = y;
      count++;
    }
  }
  return count >= FOREGROUND_SHARE * inside ? count : 0;
}

/**
 * mean |cur(p + d) - ref(p)| over the listed pixels that land inside the frame (Infinity where fewer
 * than 4 do); where all land inside, Infinity as soon as the mean is sure to reach `above`
 */
function windowCost(ref: LumaImage, cur: LumaImage, pixels: Int32Array, count: number, dx: number, dy: number, inside: boolean, above: number): number {
  const { width, height } = ref;
  const refData = ref.data;
  const curData = cur.data;
  let sum = 0;
  if (inside) {
    // every listed pixel lands inside: no bounds checks
    const offset = dy * width + dx;
    const limit = above * count;
    for (let k = 0; k < count; k++) {
      const p = pixels[2 * k + 1] * width + pixels[2 * k];
      const d = curData[p + offset] - refData[p];
      sum += d < 0 ? -d : d;
      if (sum >= limit) return NONE;
    }
    return sum / count;
  }
  let used = 0;
  for (let k = 0; k < count; k++) {
    const x = pixels[2 * k];
    const y = pixels[2 * k + 1];
    const sx = x + dx;
    const sy = y + dy;
    if (sx < 0 || sy < 0 || sx >= width || sy >= height) continue;
    const d = curData[sy * width + sx] - refData[y * width + x];
    sum += d < 0 ? -d : d;
    used++;
  }
  return used >= 4 ? sum / used : NONE;
}

/** 3x3 median over matched blocks only: one block matched to a look-alike does not tear the subject */
function medianOfMatched(values: Float32Array, matched: Uint8Array, columns: number, rows: number): void {
  const source = Float32Array.from(values);
  const near: number[] = [];
  for (let row = 0; row < rows; row++) {
    for (let column = 0; column < columns; column++) {
      if (!matched[row * columns + column]) continue;
      near.length = 0;
      for (let r = max(0, row - 1); r <= min(rows - 1, row + 1); r++) {
        for (let c = max(0, column - 1); c <= min(columns - 1, column + 1); c++) if (matched[r * columns + c]) near.push(source[r * columns + c]);
      }
      near.sort((a, b) => a - b);
      values[row * columns + column] = near[near.length >> 1];
    }
  }
}

/**
 * Unmatched blocks next to the subject take the mean of their matched (or already filled)
 * neighbours, ring after ring up to `FILL_RINGS`; blocks farther out move with the subject's
 * translation, where the matte is background anyway.
 */
function fillOutward(field: MotionField, matched: Uint8Array, around: Shift): void {
  const { columns, rows, dx, dy } = field;
  let known = Uint8Array.from(matched);
  for (let ring = 0; ring < FILL_RINGS; ring++) {
    const next = Uint8Array.from(known);
    for (let row = 0; row < rows; row++) {
      for (let column = 0; column < columns; column++) {
        if (known[row * columns + column]) continue;
        let sumX = 0;
        let sumY = 0;
        let count = 0;
        for (let r = max(0, row - 1); r <= min(rows - 1, row + 1); r++) {
          for (let c = max(0, column - 1); c <= min(columns - 1, column + 1); c++) {
            if (!known[r * columns + c]) continue;
            sumX += dx[r * columns + c];
            sumY += dy[r * columns + c];
            count++;
          }
        }
        if (!count) continue;
        dx[row * columns + column] = sumX / count;
        dy[row * columns + column] = sumY / count;
        next[row * columns + column] = 1;
      }
    }
    known = next;
  }
  for (let i = 0; i < known.length; i++) {
    if (known[i]) continue;
    dx[i] = around.dx;
    dy[i] = around.dy;
  }
}

/** bilinear sample of a plane at (x, y), clamped to its edges */
function sampleAt(plane: Float32Array, width: number, height: number, x: number, y: number): number {
  const cx = x < 0 ? 0 : x > width - 1 ? width - 1 : x;
  const cy = y < 0 ? 0 : y > height - 1 ? height - 1 : y;
  const x0 = floor(cx);
  const y0 = floor(cy);
  const x1 = x0 + 1 < width ? x0 + 1 : x0;
  const y1 = y0 + 1 < height ? y0 + 1 : y0;
  const fx = cx - x0;
  const fy = cy - y0;
  const top = plane[y0 * width + x0] + (plane[y0 * width + x1] - plane[y0 * width + x0]) * fx;
  const bottom = plane[y1 * width + x0] + (plane[y1 * width + x1] - plane[y1 * width + x0]) * fx;
  return top + (bottom - top) * fy;
}

/** the grid's values interpolated between its two rows around `row` (clamped to the grid) into `out` */
function interpolateRow(grid: Float32Array, columns: number, rows: number, row: number, out: Float32Array): void {
  const clamped = min(rows - 1, max(0, row));
  const r0 = floor(clamped);
  const r1 = r0 + 1 < rows ? r0 + 1 : r0;
  const f = clamped - r0;
  for (let c = 0; c < columns; c++) out[c] = grid[r0 * columns + c] + (grid[r1 * columns + c] - grid[r0 * columns + c]) * f;
}

/** a rectangle of pixels, `x1` and `y1` excluded */
export interface Region {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * The bounding box of the plane's values that are not negligible, undefined where none is: a
 * keyframe's matte is moved to several frames, so its propagator finds this once (warpByField).
 */
export function valuesBounds(plane: Float32Array, width: number, height: number): Region | undefined {
  let x0 = width;
  let y0 = height;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      if (plane[row + x] < NEGLIGIBLE) continue;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      y1 = y;
    }
  }
  return x1 < 0 ? undefined : { x0, y0, x1: x1 + 1, y1: y1 + 1 };
}

/** `bounds` grown by `margin` on each side, kept inside the frame */
function grown(bounds: Region, margin: number, width: number, height: number): Region {
  return { x0: max(0, floor(bounds.x0 - margin)), y0: max(0, floor(bounds.y0 - margin)), x1: min(width, ceil(bounds.x1 - 1 + margin) + 1), y1: min(height, ceil(bounds.y1 - 1 + margin) + 1) };
}

function largestMotion(field: MotionField): number {
  let largest = 0;
  for (let i = 0; i < field.dx.length; i++) largest = max(largest, abs(field.dx[i]), abs(field.dy[i]));
  return largest;
}

/**
 * The field inverted at its block centres: for each block of the later frame, the displacement u
 * with p - u landing where the keyframe's pixel came from (two fixed-point steps of u = v(p - u),
 * enough for a field this smooth).
 */
function invertedField(field: MotionField): MotionField {
  const { block, columns, rows } = field;
  const inverted: MotionField = { block, columns, rows, dx: new Float32Array(columns * rows), dy: new Float32Array(columns * rows) };
  for (let row = 0; row < rows; row++) {
    for (let column = 0; column < columns; column++) {
      let dx = field.dx[row * columns + column];
      let dy = field.dy[row * columns + column];
      for (let step = 0; step < 2; step++) {
        const x = column - dx / block;
        const y = row - dy / block;
        dx = sampleAt(field.dx, columns, rows, x, y);
        dy = sampleAt(field.dy, columns, rows, x, y);
      }
      inverted.dx[row * columns + column] = dx;
      inverted.dy[row * columns + column] = dy;
    }
  }
  return inverted;
}

/**
 * `plane` (the keyframe's matte, `width` x `height`) moved by `field`, measured on luma images
 * `lumaWidth` x `lumaHeight`: each pixel reads the keyframe where its content came from. Only the
 * pixels within the field's largest motion of the plane's values (`bounds`, valuesBounds) are
 * computed: the rest read negligible values and are zero.
 */
export function warpByField(
  plane: Float32Array,
  width: number,
  height: number,
  field: MotionField,
  lumaWidth: number,
  lumaHeight: number,
  bounds: Region | undefined,
): Float32Array {
  const out = new Float32Array(width * height);
  if (!bounds) return out;
  const scaleX = lumaWidth / width;
  const scaleY = lumaHeight / height;
  const region = grown(bounds, largestMotion(field) / min(scaleX, scaleY) + 2, width, height);
  const inverted = invertedField(field);
  const { block, columns, rows } = inverted;
  const toBlockX = scaleX / block;
  const toBlockY = scaleY / block;
  const rowDx = new Float32Array(columns);
  const rowDy = new Float32Array(columns);
  for (let y = region.y0; y < region.y1; y++) {
    // the inverted field along this row (block centres sit at whole block coordinates)
    interpolateRow(inverted.dx, columns, rows, (y + 0.5) * toBlockY - 0.5, rowDx);
    interpolateRow(inverted.dy, columns, rows, (y + 0.5) * toBlockY - 0.5, rowDy);
    for (let x = region.x0; x < region.x1; x++) {
      const bx = min(columns - 1, max(0, (x + 0.5) * toBlockX - 0.5));
      const b0 = floor(bx);
      const b1 = b0 + 1 < columns ? b0 + 1 : b0;
      const f = bx - b0;
      const sx = x - (rowDx[b0] + (rowDx[b1] - rowDx[b0]) * f) / scaleX;
      const sy = y - (rowDy[b0] + (rowDy[b1] - rowDy[b0]) * f) / scaleY;
      const value = sampleAt(plane, width, height, sx, sy);
      out[y * width + x] = value < NEGLIGIBLE ? 0 : value;
    }
  }
  return out;
}
