import { BLANK_LUMA_DEVIATION, isBlank, Picture } from '../../../src/engine/models/image/blank-frame';

/** a 64x36 frame whose every pixel is `rgb(x, y)` */
const pictureOf = (rgb: (x: number, y: number) => [number, number, number]): Picture => {
  const data = Buffer.alloc(64 * 36 * 3);
  for (let y = 0; y < 36; y++) for (let x = 0; x < 64; x++) data.set(rgb(x, y), (y * 64 + x) * 3);
  return { width: 64, height: 36, data };
};
/** a dim room: a gradient over 0..40 of luma, whose deviation is about 11.5 */
const PICTURE = pictureOf((x) => [Math.round((x * 40) / 63), Math.round((x * 40) / 63), Math.round((x * 40) / 63)]);

describe('isBlank: a frame that shows nothing', () => {
  it.each([
    ['black', () => [0, 0, 0]],
    ['video black read without range expansion (16)', () => [16, 16, 16]],
    ['a flat colour card', () => [200, 30, 60]],
    ['black with noise of +-3', (x: number, y: number) => [(x * 7 + y * 13) % 7, (x * 5 + y * 3) % 7, (x + y) % 7]],
  ] as Array<[string, (x: number, y: number) => [number, number, number]]>)('%s is blank', (_name, rgb) => {
    expect(isBlank(pictureOf(rgb))).toBe(true);
  });

  it('a dim gradient (deviation 11.5), and a deviation just over the bound, are not', () => {
    expect(isBlank(PICTURE)).toBe(false);
    // two halves BLANK_LUMA_DEVIATION + 0.5 apart from their mean: the deviation is just over the bound
    const half = BLANK_LUMA_DEVIATION + 0.5;
    expect(isBlank(pictureOf((x) => (x < 32 ? [100 + half, 100 + half, 100 + half] : [100 - half, 100 - half, 100 - half])))).toBe(false);
    const under = BLANK_LUMA_DEVIATION - 0.5;
    expect(isBlank(pictureOf((x) => (x < 32 ? [100 + under, 100 + under, 100 + under] : [100 - under, 100 - under, 100 - under])))).toBe(true);
  });

  it('a night shot is a picture: a figure 6 levels over a black room (a frame taken for blank gave its video empty mattes)', () => {
    const night = pictureOf((x, y) => (x >= 24 && x < 40 && y >= 6 ? [8, 8, 8] : [2, 2, 2]));
    expect(isBlank(night)).toBe(false);
  });

  it("a camera's noise over black is still blank: it averages out within the cells", () => {
    const data = Buffer.alloc(640 * 360 * 3);
    let seed = 7;
    for (let i = 0; i < data.length; i += 3) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      data.fill(8 + (seed % 17), i, i + 3); // 8..24, a deviation of about 5 pixel to pixel
    }
    expect(isBlank({ width: 640, height: 360, data })).toBe(true);
  });

  it('samples the whole frame: a person-sized patch in a corner of a black 640x360 frame is a picture', () => {
    const data = Buffer.alloc(640 * 360 * 3);
    for (let y = 250; y < 360; y++) for (let x = 560; x < 640; x++) data.fill(180, (y * 640 + x) * 3, (y * 640 + x) * 3 + 3);
    expect(isBlank({ width: 640, height: 360, data })).toBe(false);
  });
});
