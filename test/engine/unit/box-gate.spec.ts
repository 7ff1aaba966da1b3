import { blendInGate, boxGate, gatePlane } from '../../../src/engine/models/pro/box-gate';
import { Box } from '../../../src/engine/models/pro/boxes';

/** a plane of values 0..1 that a seeded generator makes the same every run */
function plane(width: number, height: number, seed: number): Float32Array {
  let state = seed;
  return Float32Array.from({ length: width * height }, () => ((state = (state * 1103515245 + 12345) >>> 0) / 2 ** 32));
}

describe('gatePlane: a plane times a box\'s gate, worked out where the gate is not zero', () => {
  const boxes: Record<string, Box> = {
    'in the middle': { x0: 0.3, y0: 0.2, x1: 0.6, y1: 0.9 },
    'at a corner': { x0: 0, y0: 0, x1: 0.2, y1: 0.15 },
    'past the right and bottom edges': { x0: 0.8, y0: 0.85, x1: 1.1, y1: 1.2 },
    'the whole frame': { x0: 0, y0: 0, x1: 1, y1: 1 },
    'a sliver': { x0: 0.5, y0: 0.5, x1: 0.5, y1: 0.5 },
    'outside the frame': { x0: 1.3, y0: 1.3, x1: 1.5, y1: 1.5 },
  };

  it.each(Object.entries(boxes))('%s: the values of the plane times boxGate, bit for bit', (_, box) => {
    const [width, height] = [173, 97];
    const values = plane(width, height, 7);
    const gate = boxGate(box, width, height);
    const expected = values.map((value, i) => value * gate[i]);
    expect(Buffer.from(gatePlane(values, box, width, height).buffer).equals(Buffer.from(expected.buffer))).toBe(true);
  });

  it('keeps the plane inside the grown box and nothing far outside it', () => {
    const [width, height] = [200, 100];
    const gated = gatePlane(new Float32Array(width * height).fill(0.8), { x0: 0.25, y0: 0.25, x1: 0.5, y1: 0.75 }, width, height);
    expect(gated[50 * width + 75]).toBeCloseTo(0.8, 6);
    expect(gated[50 * width + 180]).toBe(0);
    expect(gated[2 * width + 75]).toBe(0);
  });
});

describe("blendInGate: a keyframe's fresh matte blended with the moved one inside the box's gate", () => {
  it.each([
    { x0: 0.3, y0: 0.2, x1: 0.6, y1: 0.9 },
    { x0: -0.1, y0: 0.7, x1: 0.3, y1: 1.1 },
  ])('the values of w * fresh + (1 - w) * gate * previous over the whole plane, bit for bit (box %o)', (box) => {
    const [width, height] = [173, 97];
    const fresh = gatePlane(plane(width, height, 3), box, width, height);
    const previous = plane(width, height, 11);
    const gate = boxGate(box, width, height);
    const expected = fresh.map((value, i) => 0.6 * value + (1 - 0.6) * gate[i] * previous[i]);
    blendInGate(fresh, previous, 0.6, box, width, height);
    expect(Buffer.from(fresh.buffer).equals(Buffer.from(expected.buffer))).toBe(true);
  });
});
