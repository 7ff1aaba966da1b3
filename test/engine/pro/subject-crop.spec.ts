import { Box } from '../../../src/engine/models/pro/boxes';
import { cropRgb, foregroundExtent, othersApart, pastePlane, subjectRegion, toPixelRect } from '../../../src/engine/models/pro/subject-crop';

const box = (x0: number, y0: number, x1: number, y1: number): Box => ({ x0, y0, x1, y1 });

function expectBox(actual: Box | undefined, expected: Box): void {
  expect(actual).toBeDefined();
  for (const key of ['x0', 'y0', 'x1', 'y1'] as const) expect(actual![key]).toBeCloseTo(expected[key], 10);
}

describe('subject crops for ISNet', () => {
  it('the region is the subjects\' union grown by a quarter of its size on each side, clamped to the frame', () => {
    expectBox(subjectRegion([box(0.4, 0.4, 0.5, 0.6), box(0.5, 0.5, 0.6, 0.6)]), box(0.35, 0.35, 0.65, 0.65));
    expectBox(subjectRegion([box(0, 0.1, 0.2, 0.3)]), box(0, 0.05, 0.25, 0.35));
  });

  it("a plane's foreground extent: the box around its values from 0.5, none without one", () => {
    const plane = new Float32Array(10 * 5);
    expect(foregroundExtent(plane, 10, 5)).toBeUndefined();
    plane[1 * 10 + 2] = 0.5;
    plane[3 * 10 + 6] = 0.9;
    plane[4 * 10 + 9] = 0.49;
    expectBox(foregroundExtent(plane, 10, 5), box(0.2, 0.2, 0.7, 0.8));
  });

  it('no subjects, or subjects that would need most of the frame: the whole frame', () => {
    expect(subjectRegion([])).toBeUndefined();
    expect(subjectRegion([box(0.1, 0.1, 0.7, 0.7)])).toBeUndefined(); // grown to 0.9 x 0.9
  });

  it('another class counts as a competitor only when it lies mostly outside every subject', () => {
    const car = box(0.1, 0.1, 0.4, 0.4);
    expect(othersApart([box(0.6, 0.5, 0.9, 0.9)], [car])).toBe(true); // a person beside the car
    expect(othersApart([box(0.12, 0.1, 0.42, 0.4)], [car])).toBe(false); // the car, also labelled "truck"
    expect(othersApart([], [car])).toBe(false);
  });

  it('a crop scaled up and its plane pasted back land on the same pixels, zeros elsewhere', () => {
    const width = 8;
    const height = 6;
    const rgb = new Uint8Array(width * height * 3);
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) rgb.set([x * 10, y * 10, 7], (y * width + x) * 3);
    const rect = toPixelRect(box(0.25, 0.5, 0.75, 1), width, height);
    expect(rect).toEqual({ x: 2, y: 3, width: 4, height: 3 });

    const same = cropRgb(rgb, width, rect, rect.width, rect.height);
    expect([...same.subarray(0, 3)]).toEqual([20, 30, 7]); // top-left of the crop is pixel (2, 3)
    expect([...same.subarray(same.length - 3)]).toEqual([50, 50, 7]); // bottom-right is (5, 5)
    expect(cropRgb(rgb, width, rect, 16, 12)).toHaveLength(16 * 12 * 3);

    const pasted = pastePlane(new Float32Array(16 * 12).fill(1), 16, 12, rect, width, height);
    const inside = (i: number) => i % width >= 2 && i % width < 6 && Math.floor(i / width) >= 3;
    pasted.forEach((value, i) => expect(value).toBe(inside(i) ? 1 : 0));
  });
});
