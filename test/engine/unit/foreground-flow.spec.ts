import { estimateForegroundFlow, MotionField, valuesBounds, warpByField } from '../../../src/engine/models/temporal/foreground-flow';
import { KeyframePropagator } from '../../../src/engine/models/temporal/keyframe-propagator';
import { maskIou } from '../../../src/engine/quality/metrics';

/** a subject of two parts that move apart (a leg and a body), over a textured background that can move on its own */
interface Part {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  dx: number;
  dy: number;
  seed: number;
}

/** deterministic texture in 0..1, smooth over a few pixels (so a block has one best match) */
function texture(seed: number, x: number, y: number): number {
  const hash = (i: number, j: number) => {
    const n = Math.sin(i * 127.1 + j * 311.7 + seed * 74.7) * 43758.5453;
    return n - Math.floor(n);
  };
  const xi = Math.floor(x / 3);
  const yi = Math.floor(y / 3);
  const fx = x / 3 - xi;
  const fy = y / 3 - yi;
  const top = hash(xi, yi) * (1 - fx) + hash(xi + 1, yi) * fx;
  const bottom = hash(xi, yi + 1) * (1 - fx) + hash(xi + 1, yi + 1) * fx;
  return top * (1 - fy) + bottom * fy;
}

/** which part covers (x, y) once each has moved by `t` of its motion, or -1 */
function partAt(parts: Part[], x: number, y: number, t: number): number {
  return parts.findIndex((p) => x >= p.x0 + t * p.dx && x < p.x1 + t * p.dx && y >= p.y0 + t * p.dy && y < p.y1 + t * p.dy);
}

function scene(width: number, height: number, parts: Part[], background: { dx: number; dy: number }, t: number) {
  const luma = new Float32Array(width * height);
  const mask = new Float32Array(width * height);
  const rgb = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const part = partAt(parts, x, y, t);
      const value = part >= 0 ? 0.3 + 0.7 * texture(parts[part].seed, x - t * parts[part].dx, y - t * parts[part].dy) : 0.6 * texture(99, x - t * background.dx, y - t * background.dy);
      luma[y * width + x] = value;
      mask[y * width + x] = part >= 0 ? 1 : 0;
      rgb.fill(Math.round(value * 255), (y * width + x) * 3, (y * width + x) * 3 + 3);
    }
  }
  return { luma: { width, height, data: luma }, mask, rgb };
}

const WIDTH = 160;
const HEIGHT = 96;
/** a body moving right and a leg under it moving down: no single translation fits both (the leg within the search range of the body) */
const ARTICULATED: Part[] = [
  { x0: 50, y0: 20, x1: 110, y1: 50, dx: 4, dy: 0, seed: 1 },
  { x0: 60, y0: 50, x1: 76, y1: 85, dx: 0, dy: 2, seed: 2 },
];
/** `plane` moved by `field` (measured on luma images lumaWidth x lumaHeight), as the propagator moves it */
function warp(plane: Float32Array, width: number, height: number, field: MotionField, lumaWidth: number, lumaHeight: number): Float32Array {
  return warpByField(plane, width, height, field, lumaWidth, lumaHeight, valuesBounds(plane, width, height));
}

/** the same scene at twice the size */
const DOUBLED = ARTICULATED.map((p) => ({ ...p, x0: 2 * p.x0, y0: 2 * p.y0, x1: 2 * p.x1, y1: 2 * p.y1, dx: 2 * p.dx, dy: 2 * p.dy }));

describe('foreground flow', () => {
  it('moves each part of a subject with its own motion, where one translation cannot', () => {
    const key = scene(WIDTH, HEIGHT, ARTICULATED, { dx: 0, dy: 0 }, 0);
    const later = scene(WIDTH, HEIGHT, ARTICULATED, { dx: 0, dy: 0 }, 1);
    const field = estimateForegroundFlow(key.luma, key.mask, later.luma, { dx: 3, dy: 0 });
    const warped = warp(key.mask, WIDTH, HEIGHT, field, WIDTH, HEIGHT);
    expect(maskIou(warped, later.mask, 0.5)).toBeGreaterThan(0.95);
    // the best single translation, the body's, loses the leg
    const translated = warp(key.mask, WIDTH, HEIGHT, { block: WIDTH, columns: 1, rows: 1, dx: Float32Array.of(4), dy: Float32Array.of(0) }, WIDTH, HEIGHT);
    expect(maskIou(translated, later.mask, 0.5)).toBeLessThan(0.9);
  });

  it('keeps the edges with the subject where the background moves the other way', () => {
    const body = [ARTICULATED[0]];
    const key = scene(WIDTH, HEIGHT, body, { dx: -3, dy: 2 }, 0);
    const later = scene(WIDTH, HEIGHT, body, { dx: -3, dy: 2 }, 1);
    const field = estimateForegroundFlow(key.luma, key.mask, later.luma, { dx: 4, dy: 0 });
    expect(maskIou(warp(key.mask, WIDTH, HEIGHT, field, WIDTH, HEIGHT), later.mask, 0.5)).toBeGreaterThan(0.97);
  });

  it('moves the matte at twice the motion estimate’s size', () => {
    const key = scene(WIDTH, HEIGHT, ARTICULATED, { dx: 0, dy: 0 }, 0);
    const later = scene(WIDTH, HEIGHT, ARTICULATED, { dx: 0, dy: 0 }, 1);
    const field = estimateForegroundFlow(key.luma, key.mask, later.luma, { dx: 3, dy: 0 });
    const large = scene(2 * WIDTH, 2 * HEIGHT, DOUBLED, { dx: 0, dy: 0 }, 0);
    const largeLater = scene(2 * WIDTH, 2 * HEIGHT, DOUBLED, { dx: 0, dy: 0 }, 1);
    expect(maskIou(warp(large.mask, 2 * WIDTH, 2 * HEIGHT, field, WIDTH, HEIGHT), largeLater.mask, 0.5)).toBeGreaterThan(0.95);
  });

  it('moves everything by the translation it was given where the matte has no foreground', () => {
    const key = scene(WIDTH, HEIGHT, ARTICULATED, { dx: 0, dy: 0 }, 0);
    const field = estimateForegroundFlow(key.luma, new Float32Array(WIDTH * HEIGHT), key.luma, { dx: 2.5, dy: -1 });
    expect(new Set(field.dx)).toEqual(new Set([2.5]));
    expect(new Set(field.dy)).toEqual(new Set([-1]));
    expect(warp(new Float32Array(WIDTH * HEIGHT), WIDTH, HEIGHT, field, WIDTH, HEIGHT).every((v) => v === 0)).toBe(true);
  });

  it('keeps a full matte full on frames smaller than one block, whatever the edges clip', () => {
    for (const [width, height] of [
      [2, 2],
      [6, 3],
    ]) {
      const luma = { width, height, data: Float32Array.from({ length: width * height }, (_, i) => (i % 3) / 3) };
      const mask = new Float32Array(width * height).fill(1);
      const field = estimateForegroundFlow(luma, mask, luma, { dx: 0.4, dy: -0.3 });
      const matte = new Float32Array(4 * width * height).fill(1);
      const warped = warp(matte, 2 * width, 2 * height, field, width, height);
      expect(warped.every((v) => v === 1)).toBe(true);
    }
  });

  it('is what the keyframe propagator moves a matte by when asked to follow the flow', () => {
    const key = scene(2 * WIDTH, 2 * HEIGHT, DOUBLED, { dx: 0, dy: 0 }, 0);
    const later = scene(2 * WIDTH, 2 * HEIGHT, DOUBLED, { dx: 0, dy: 0 }, 1);
    const moved = (flow: boolean) => {
      const propagator = new KeyframePropagator(2, { flow });
      propagator.setKeyframe(key.rgb, 2 * WIDTH, 2 * HEIGHT, key.mask, 2 * WIDTH, 2 * HEIGHT);
      return maskIou(propagator.propagate(later.rgb, 2 * WIDTH, 2 * HEIGHT), later.mask, 0.5);
    };
    expect(moved(true)).toBeGreaterThan(0.95);
    expect(moved(false)).toBeLessThan(0.9);
  });
});
