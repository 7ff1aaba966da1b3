/**
 * Bilinear resampling of single-channel planes with half-pixel centres (the convention of
 * ffmpeg's and onnxruntime's bilinear scalers), in plain typed-array loops.
 */

export interface Plane<T extends Float32Array | Uint8Array = Float32Array> {
  width: number;
  height: number;
  data: T;
}

export interface Taps {
  lo: Int32Array;
  hi: Int32Array;
  frac: Float32Array;
}

const tapCache = new Map<string, Taps>();

/** source sample positions of each destination index along one axis (memoised per size pair) */
export function taps(srcSize: number, dstSize: number): Taps {
  const key = `${srcSize}>${dstSize}`;
  const cached = tapCache.get(key);
  if (cached) return cached;
  const lo = new Int32Array(dstSize);
  const hi = new Int32Array(dstSize);
  const frac = new Float32Array(dstSize);
  const scale = srcSize / dstSize;
  for (let i = 0; i < dstSize; i++) {
    const x = Math.min(Math.max((i + 0.5) * scale - 0.5, 0), srcSize - 1);
    lo[i] = Math.floor(x);
    hi[i] = Math.min(lo[i] + 1, srcSize - 1);
    frac[i] = x - lo[i];
  }
  const result = { lo, hi, frac };
  tapCache.set(key, result);
  return result;
}

/**
 * Bilinear resize of one plane; the output is float32 in the input's value range. Each source row
 * is interpolated across once, in doubles (the values the two-row form computes), and kept while
 * destination rows read it: an upscale reads each source row for 2-3 destination rows.
 */
export function resizePlane(src: Plane<Float32Array | Uint8Array>, width: number, height: number, out = new Float32Array(width * height)): Float32Array {
  const ys = taps(src.height, height);
  const rows = new AcrossRows(src, taps(src.width, width));
  for (let y = 0; y < height; y++) {
    const top = rows.row(ys.lo[y]);
    const bottom = rows.row(ys.hi[y]);
    const fy = ys.frac[y];
    let o = y * width;
    for (let x = 0; x < width; x++, o++) out[o] = top[x] + (bottom[x] - top[x]) * fy;
  }
  return out;
}

/**
 * `resizePlane` for a plane that is zero over most of each row (a mask of a few regions): only the
 * destination pixels whose source taps reach a row's nonzero span are computed, the rest stay 0.
 * The values are those `resizePlane` gives, bit for bit.
 */
export function resizeSparsePlane(src: Plane<Float32Array>, width: number, height: number): Float32Array {
  const out = new Float32Array(width * height);
  const xs = taps(src.width, width);
  const ys = taps(src.height, height);
  const spans = nonzeroSpans(src);
  const s = src.data;
  for (let y = 0; y < height; y++) {
    const top = ys.lo[y];
    const bottom = ys.hi[y];
    const first = Math.min(spans.first[top], spans.first[bottom]);
    const last = Math.max(spans.last[top], spans.last[bottom]);
    if (first > last) continue;
    const fy = ys.frac[y];
    const topRow = top * src.width;
    const bottomRow = bottom * src.width;
    let x = 0;
    while (x < width && xs.hi[x] < first) x++;
    for (let o = y * width + x; x < width && xs.lo[x] <= last; x++, o++) {
      const lo = xs.lo[x];
      const hi = xs.hi[x];
      const fx = xs.frac[x];
      const upper = s[topRow + lo] + (s[topRow + hi] - s[topRow + lo]) * fx;
      const lower = s[bottomRow + lo] + (s[bottomRow + hi] - s[bottomRow + lo]) * fx;
      out[o] = upper + (lower - upper) * fy;
    }
  }
  return out;
}

/** per row, the first and last column holding a nonzero value (first > last: none) */
function nonzeroSpans(src: Plane<Float32Array>): { first: Int32Array; last: Int32Array } {
  const first = new Int32Array(src.height).fill(src.width);
  const last = new Int32Array(src.height).fill(-1);
  for (let y = 0; y < src.height; y++) {
    const row = y * src.width;
    for (let x = 0; x < src.width; x++) {
      if (src.data[row + x] === 0) continue;
      if (first[y] === src.width) first[y] = x;
      last[y] = x;
    }
  }
  return { first, last };
}

/** a plane's rows interpolated across to the destination width, the last two kept */
class AcrossRows {
  private readonly kept: [index: number, values: Float64Array][];

  constructor(
    private readonly src: Plane<Float32Array | Uint8Array>,
    private readonly xs: Taps,
  ) {
    this.kept = [
      [-1, new Float64Array(xs.lo.length)],
      [-1, new Float64Array(xs.lo.length)],
    ];
  }

  row(index: number): Float64Array {
    const [newer, older] = this.kept;
    if (newer[0] === index) return newer[1];
    this.kept.reverse();
    if (older[0] === index) return older[1];
    // rows are asked for in order: the one asked for least recently is not needed again
    older[0] = index;
    const { lo, hi, frac } = this.xs;
    const s = this.src.data;
    const start = index * this.src.width;
    const values = older[1];
    for (let x = 0; x < values.length; x++) {
      const left = s[start + lo[x]];
      values[x] = left + (s[start + hi[x]] - left) * frac[x];
    }
    return values;
  }
}

/**
 * Bilinear resize of packed RGB24 to packed RGB24; `mirrored`: written as its left-right mirror
 * image (what mirror.ts's mirrorRows of the result gives), in the same pass.
 */
export function resizeRgb(src: Uint8Array, srcWidth: number, srcHeight: number, width: number, height: number, out = new Uint8Array(width * height * 3), mirrored = false): Uint8Array {
  if (srcWidth === 2 * width && srcHeight === 2 * height) return halveRgb(src, width, height, out, mirrored);
  const xs = taps(srcWidth, width);
  const ys = taps(srcHeight, height);
  const left = xs.lo.map((x) => x * 3);
  const right = xs.hi.map((x) => x * 3);
  for (let y = 0; y < height; y++) {
    const row0 = ys.lo[y] * srcWidth * 3;
    const row1 = ys.hi[y] * srcWidth * 3;
    const fy = ys.frac[y];
    for (let x = 0; x < width; x++) {
      const a = row0 + left[x];
      const b = row0 + right[x];
      const c = row1 + left[x];
      const d = row1 + right[x];
      const fx = xs.frac[x];
      let o = (y * width + (mirrored ? width - 1 - x : x)) * 3;
      for (let ch = 0; ch < 3; ch++, o++) {
        const top = src[a + ch] + (src[b + ch] - src[a + ch]) * fx;
        const bottom = src[c + ch] + (src[d + ch] - src[c + ch]) * fx;
        out[o] = top + (bottom - top) * fy + 0.5;
      }
    }
  }
  return out;
}

/**
 * `resizeRgb` to exactly half the size: with half-pixel centres each output pixel lies midway in
 * a 2x2 block, so bilinear is the block's mean, rounded half up: the same bytes, in integers (the
 * small mirrored pass halves every frame at 640x360: the general loop and a mirroring after it took
 * about 3 ms a frame of the engine's own thread there, this about 1).
 */
function halveRgb(src: Uint8Array, width: number, height: number, out: Uint8Array, mirrored: boolean): Uint8Array {
  const srcRow = width * 6;
  for (let y = 0; y < height; y++) {
    let a = 2 * y * srcRow;
    let o = y * width * 3 + (mirrored ? (width - 1) * 3 : 0);
    const step = mirrored ? -6 : 0;
    for (let x = 0; x < width; x++, a += 3, o += step) {
      for (let ch = 0; ch < 3; ch++, a++, o++) out[o] = (src[a] + src[a + 3] + src[a + srcRow] + src[a + srcRow + 3] + 2) >> 2;
    }
  }
  return out;
}

/** float plane in [0,1] -> 8-bit alpha */
export function toAlphaBytes(values: Float32Array, out = new Uint8Array(values.length)): Uint8Array {
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    out[i] = v <= 0 ? 0 : v >= 1 ? 255 : v * 255 + 0.5; // Uint8Array truncates
  }
  return out;
}
