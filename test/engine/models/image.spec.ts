import { boxMean } from '../../../src/engine/models/image/box-filter';
import { guidedFilter } from '../../../src/engine/models/image/guided-filter';
import { mirrorRows } from '../../../src/engine/models/image/mirror';
import { resizePlane, resizeRgb, resizeSparsePlane, toAlphaBytes } from '../../../src/engine/models/image/resample';
import { estimateSubjectShift, shiftPlane } from '../../../src/engine/models/temporal/subject-motion';
import { AdaptiveEma } from '../../../src/engine/models/temporal/adaptive-ema';

function naiveBoxMean(src: Float32Array, width: number, height: number, r: number): Float32Array {
  const out = new Float32Array(src.length);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      let sum = 0;
      let count = 0;
      for (let v = Math.max(0, y - r); v <= Math.min(height - 1, y + r); v++)
        for (let u = Math.max(0, x - r); u <= Math.min(width - 1, x + r); u++) {
          sum += src[v * width + u];
          count++;
        }
      out[y * width + x] = sum / count;
    }
  return out;
}

function randomPlane(n: number, seed: number): Float32Array {
  let s = seed;
  return Float32Array.from({ length: n }, () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  });
}

describe('box filter', () => {
  it.each([
    [7, 5, 1],
    [13, 9, 3],
    [4, 6, 10],
  ])('matches a naive window mean (%ix%i, r=%i)', (w, h, r) => {
    const src = randomPlane(w * h, w * 31 + r);
    const fast = boxMean(src, w, h, r);
    const slow = naiveBoxMean(src, w, h, r);
    for (let i = 0; i < src.length; i++) expect(fast[i]).toBeCloseTo(slow[i], 5);
  });
});

describe('guided filter', () => {
  it('keeps a step edge of the input where the guide has the same edge', () => {
    const w = 32;
    const h = 8;
    const step = Float32Array.from({ length: w * h }, (_, i) => (i % w < 16 ? 0 : 1));
    const out = guidedFilter(step, step, w, h, 4, 1e-4);
    expect(out[3 * w + 14]).toBeLessThan(0.05);
    expect(out[3 * w + 17]).toBeGreaterThan(0.95);
  });

  it('smooths the input where the guide is flat', () => {
    const w = 32;
    const h = 8;
    const guide = new Float32Array(w * h).fill(0.5);
    const step = Float32Array.from({ length: w * h }, (_, i) => (i % w < 16 ? 0 : 1));
    const out = guidedFilter(guide, step, w, h, 4, 1e-4);
    expect(out[3 * w + 15]).toBeGreaterThan(0.2);
    expect(out[3 * w + 15]).toBeLessThan(0.8);
  });
});

describe('resampling', () => {
  it('is the identity at the same size and keeps a constant plane constant', () => {
    const src = randomPlane(20, 3);
    expect(Array.from(resizePlane({ width: 5, height: 4, data: src }, 5, 4))).toEqual(Array.from(src));
    const flat = resizePlane({ width: 5, height: 4, data: new Float32Array(20).fill(0.25) }, 13, 7);
    flat.forEach((v) => expect(v).toBeCloseTo(0.25));
    const rgb = resizeRgb(new Uint8Array(2 * 2 * 3).fill(200), 2, 2, 5, 3);
    expect(Array.from(new Set(rgb))).toEqual([200]);
  });

  it('gives bilinear values with half-pixel centres, up and down, float and byte planes', () => {
    /** the definition: per destination pixel, its four source pixels interpolated across, then down */
    const reference = (src: Float32Array | Uint8Array, sw: number, sh: number, width: number, height: number) => {
      const tap = (i: number, from: number, to: number) => {
        const x = Math.min(Math.max((i + 0.5) * (from / to) - 0.5, 0), from - 1);
        return [Math.floor(x), Math.min(Math.floor(x) + 1, from - 1), Math.fround(x - Math.floor(x))];
      };
      return Float32Array.from({ length: width * height }, (_, o) => {
        const [x0, x1, fx] = tap(o % width, sw, width);
        const [y0, y1, fy] = tap(Math.floor(o / width), sh, height);
        const top = src[y0 * sw + x0] + (src[y0 * sw + x1] - src[y0 * sw + x0]) * fx;
        const bottom = src[y1 * sw + x0] + (src[y1 * sw + x1] - src[y1 * sw + x0]) * fx;
        return top + (bottom - top) * fy;
      });
    };
    const float = randomPlane(17 * 11, 5);
    const bytes = Uint8Array.from(float, (v) => Math.round(v * 255));
    for (const [width, height] of [[40, 29], [17, 11], [6, 4], [23, 5], [3, 20]]) {
      expect(Array.from(resizePlane({ width: 17, height: 11, data: float }, width, height))).toEqual(Array.from(reference(float, 17, 11, width, height)));
      expect(Array.from(resizePlane({ width: 17, height: 11, data: bytes }, width, height))).toEqual(Array.from(reference(bytes, 17, 11, width, height)));
    }
  });

  it('halves RGB to the bytes bilinear gives, and writes the mirror image when asked, at any size', () => {
    const rgb = Uint8Array.from(randomPlane(64 * 36 * 3, 9), (v) => Math.round(v * 255));
    // each channel through resizePlane (the bilinear definition above), rounded half up as resizeRgb rounds
    const byPlanes = (width: number, height: number) => {
      const out = new Uint8Array(width * height * 3);
      for (let ch = 0; ch < 3; ch++) {
        const channel = Uint8Array.from({ length: 64 * 36 }, (_, p) => rgb[3 * p + ch]);
        resizePlane({ width: 64, height: 36, data: channel }, width, height).forEach((v, p) => (out[3 * p + ch] = Math.floor(v + 0.5)));
      }
      return out;
    };
    for (const [width, height] of [[32, 18], [20, 13], [64, 36], [100, 50]]) {
      const resized = resizeRgb(rgb, 64, 36, width, height);
      if (width === 32) expect(Array.from(resized)).toEqual(Array.from(byPlanes(width, height)));
      expect(Array.from(resizeRgb(rgb, 64, 36, width, height, undefined, true))).toEqual(Array.from(mirrorRows(resized, width, height, 3)));
    }
    // one 2x2 block, per channel 0 1 1 1 (0.75 rounds up), 0 0 0 1 (0.25 down), 1 1 0 0 (0.5 rounds up)
    const block = Uint8Array.from([0, 0, 1, 1, 0, 1, 1, 0, 0, 1, 1, 0]);
    expect(Array.from(resizeRgb(block, 2, 2, 1, 1))).toEqual([1, 0, 1]);
  });

  it('gives the same values for a mostly empty plane when it skips its empty spans', () => {
    const mask = new Float32Array(16 * 9);
    // a block, a lone pixel at an edge, a row touching both sides, and empty rows between them
    for (let y = 2; y <= 4; y++) for (let x = 5; x <= 9; x++) mask[y * 16 + x] = 1;
    mask[6 * 16 + 15] = 1;
    mask[8 * 16] = 0.5;
    mask[8 * 16 + 15] = 0.25;
    for (const [width, height] of [[40, 23], [16, 9], [7, 4], [33, 9]]) {
      expect(Array.from(resizeSparsePlane({ width: 16, height: 9, data: mask }, width, height))).toEqual(Array.from(resizePlane({ width: 16, height: 9, data: mask }, width, height)));
    }
    expect(Array.from(new Set(resizeSparsePlane({ width: 16, height: 9, data: new Float32Array(16 * 9) }, 40, 23)))).toEqual([0]);
  });

  it('clamps and rounds to 8-bit alpha', () => {
    expect(Array.from(toAlphaBytes(Float32Array.of(-0.2, 0, 0.5, 1, 1.3)))).toEqual([0, 0, 128, 255, 255]);
  });
});

describe('subject motion', () => {
  it('recovers a sub-pixel translation of a textured subject', () => {
    const w = 96;
    const h = 64;
    const texture = (x: number, y: number) => 0.5 + 0.25 * Math.sin(x * 0.7) * Math.cos(y * 0.5) + (x > 30 && x < 60 && y > 20 && y < 50 ? 0.2 : 0);
    const ref = Float32Array.from({ length: w * h }, (_, i) => texture(i % w, Math.floor(i / w)));
    const mask = Float32Array.from({ length: w * h }, (_, i) => (i % w > 30 && i % w < 60 && i / w > 20 && i / w < 50 ? 1 : 0));
    const shift = { dx: 5.5, dy: -3 };
    const cur = shiftPlane(ref, w, h, shift);
    const found = estimateSubjectShift({ width: w, height: h, data: ref }, mask, { width: w, height: h, data: cur })!;
    expect(found.dx).toBeCloseTo(5.5, 0);
    expect(Math.abs(found.dy + 3)).toBeLessThan(0.3);
  });

  it('moves a plane by whole pixels exactly', () => {
    const src = Float32Array.from({ length: 16 }, (_, i) => i);
    const out = shiftPlane(src, 4, 4, { dx: 1, dy: 1 });
    expect(out[1 * 4 + 1]).toBe(src[0]);
    expect(out[3 * 4 + 3]).toBe(src[2 * 4 + 2]);
  });
});

describe('adaptive EMA', () => {
  it('damps small changes and follows large ones at once', () => {
    const ema = new AdaptiveEma(0.25, 0.5);
    ema.update(Float32Array.of(0, 0));
    const out = ema.update(Float32Array.of(0.1, 1));
    expect(out[0]).toBeGreaterThan(0.02);
    expect(out[0]).toBeLessThan(0.05);
    expect(out[1]).toBe(1);
  });
});
