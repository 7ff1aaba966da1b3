import { mirrorRows } from '../../../src/engine/models/image/mirror';
import { binomialBlurRgb, estimateNoiseSigma, GRAINY_SIGMA, GrainFilter, passesFor } from '../../../src/engine/models/image/sensor-noise';
import { RvmMatter } from '../../../src/engine/models/rvm/rvm-matter';
import { RvmSession } from '../../../src/engine/models/rvm/rvm-session';

/** a deterministic pseudo-random source (a fixed-seed LCG), so the grain is the same on every run */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** a picture with texture and straight edges: a ramp, a bright square and stripes, grey (r = g = b) */
function scene(width: number, height: number, grain = 0, seed = 7): Uint8Array {
  const random = seeded(seed);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const rgb = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let value = 40 + (120 * x) / width;
      if (x > width / 4 && x < width / 2 && y > height / 4 && y < (3 * height) / 4) value = 220;
      if (x > (2 * width) / 3 && (x >> 3) % 2 === 0) value = 30;
      const v = Math.max(0, Math.min(255, Math.round(value + grain * gaussian())));
      rgb.fill(v, 3 * (y * width + x), 3 * (y * width + x) + 3);
    }
  }
  return rgb;
}

describe('sensor noise: the grain in a frame, and smoothing it before RVM', () => {
  const W = 160;
  const H = 90;

  it('estimates the deviation of added Gaussian grain to within a fifth, and reads a clean picture with edges and stripes as clean', () => {
    expect(estimateNoiseSigma(scene(W, H), W, H)).toBeLessThan(1);
    for (const grain of [6, 12, 20]) {
      const estimate = estimateNoiseSigma(scene(W, H, grain), W, H);
      expect(estimate).toBeGreaterThan(0.8 * grain);
      expect(estimate).toBeLessThan(1.2 * grain);
    }
  });

  it('smooths with [1 2 1]/4 each way: a flat picture stays flat, a lone bright pixel spreads as the kernel', () => {
    const flat = new Uint8Array(5 * 4 * 3).fill(90);
    expect(binomialBlurRgb(flat, 5, 4, 2)).toEqual(flat);
    const dot = new Uint8Array(5 * 5 * 3);
    dot.fill(160, 3 * 12, 3 * 13); // the centre pixel, all three channels
    const once = binomialBlurRgb(dot, 5, 5, 1);
    const red = (x: number, y: number) => once[3 * (y * 5 + x)];
    expect([red(2, 2), red(1, 2), red(2, 1), red(1, 1), red(0, 0)]).toEqual([40, 20, 20, 10, 0]);
    expect(once[3 * 12 + 1]).toBe(40);
    // the input is left as it was
    expect(dot[3 * 12]).toBe(160);
    // at a corner the pixel repeats itself outside the frame: 3/4 of it each way
    const corner = new Uint8Array(5 * 5 * 3);
    corner.fill(160, 0, 3);
    expect([...binomialBlurRgb(corner, 5, 5, 1).slice(0, 3)]).toEqual([90, 90, 90]);
  });

  it('halves grain of deviation 12 in two passes', () => {
    const grainy = scene(W, H, 12);
    expect(estimateNoiseSigma(binomialBlurRgb(grainy, W, H, 2), W, H)).toBeLessThan(6);
  });

  it('smooths more the grainier the frame, and not at all under the grain clean footage has', () => {
    expect(passesFor(2.5)).toBe(0);
    expect(passesFor(GRAINY_SIGMA - 0.01)).toBe(0);
    expect(passesFor(GRAINY_SIGMA)).toBe(1);
    expect(passesFor(6.7)).toBe(1);
    expect(passesFor(12)).toBe(2);
    expect(passesFor(17.5)).toBe(4);
    expect(passesFor(60)).toBe(4);
  });

  it('GrainFilter gives a clean frame back as it is and a grainy one smoothed; it estimates again after a restart', () => {
    const filter = new GrainFilter();
    const clean = scene(W, H);
    expect(filter.apply(clean, W, H)).toBe(clean);
    // within the estimate interval the clean decision holds, though this frame is grainy
    const grainy = scene(W, H, 15);
    expect(filter.apply(grainy, W, H)).toBe(grainy);
    filter.restart();
    const smoothed = filter.apply(grainy, W, H);
    expect(smoothed).not.toBe(grainy);
    expect(estimateNoiseSigma(smoothed, W, H)).toBeLessThan(estimateNoiseSigma(grainy, W, H) / 2);
  });
});

describe('RvmSession: what RVM sees of a grainy video', () => {
  const W = 160;
  const H = 90;

  /** a stand-in for RVM (no inference): each stream records the frames it is given */
  function recordingMatter() {
    const seen: Uint8Array[][] = [];
    const stream = () => {
      const frames: Uint8Array[] = [];
      seen.push(frames);
      const alpha = new Float32Array(W * H);
      return { next: async (rgb: Uint8Array) => (frames.push(Uint8Array.from(rgb)), { alpha, alphaBytes: new Uint8Array(W * H) }), reset: () => undefined, close: () => undefined };
    };
    return { matter: { width: W, height: H, stream } as unknown as RvmMatter, seen };
  }

  it('a grainy frame reaches RVM smoothed, on the mirrored pass too; a clean one as it is', async () => {
    const { matter, seen } = recordingMatter();
    const session = new RvmSession(matter, { mirrored: true });
    const grainy = scene(W, H, 15);
    await session.segment({ index: 0, width: W, height: H, data: Buffer.from(grainy) });
    const [direct, mirrored] = seen;
    expect(direct[0]).toEqual(binomialBlurRgb(grainy, W, H, passesFor(estimateNoiseSigma(grainy, W, H))));
    expect(mirrored[0]).toEqual(mirrorRows(direct[0], W, H, 3));
    const clean = new RvmSession(matter);
    const picture = scene(W, H);
    await clean.segment({ index: 0, width: W, height: H, data: Buffer.from(picture) });
    expect(seen[2][0]).toEqual(picture);
  });
});
