import { BLANK_LUMA_DEVIATION, isBlank, Picture } from '../../../src/engine/models/image/blank-frame';
import { HAND_OVER_AFTER_SECONDS, KEPT_SHARE, PeopleSeen } from '../../../src/engine/models/people-seen';
import { HandOver } from '../../../src/engine/types';

const PIXELS = 10_000;
const FPS = 25;
const DEADLINE = Math.round(HAND_OVER_AFTER_SECONDS * FPS);
const matteKeeping = (pixels: number) => Uint8Array.from({ length: PIXELS }, (_, i) => (i < pixels ? 255 : 0));
const nobody = () => matteKeeping(PIXELS * KEPT_SHARE - 1);
/** a 64x36 frame whose every pixel is `rgb(x, y)` */
const pictureOf = (rgb: (x: number, y: number) => [number, number, number]): Picture => {
  const data = Buffer.alloc(64 * 36 * 3);
  for (let y = 0; y < 36; y++) for (let x = 0; x < 64; x++) data.set(rgb(x, y), (y * 64 + x) * 3);
  return { width: 64, height: 36, data };
};
/** a dim room: a gradient over 0..40 of luma, whose deviation is about 11.5 */
const PICTURE = pictureOf((x) => [Math.round((x * 40) / 63), Math.round((x * 40) / 63), Math.round((x * 40) / 63)]);
const BLACK = pictureOf(() => [0, 0, 0]);
const NOTE =
  "human: no person in sight in the first half second, so original matted the video instead (it keeps any subject; light and human keep people only)";

describe('PeopleSeen: a people-only model that keeps no one hands the video to original', () => {
  it("hands over on the deadline's frame, not before, when every frame keeps less than the share that makes someone", () => {
    const seen = new PeopleSeen('human', FPS);
    for (let i = 1; i < DEADLINE; i++) seen.observe(nobody(), PICTURE);
    let thrown: unknown;
    try {
      seen.observe(nobody(), PICTURE);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(HandOver);
    expect(thrown).toMatchObject({ model: 'original', note: NOTE });
  });

  it('counts the deadline in frames of the video: half a second at its frame rate', () => {
    const seen = new PeopleSeen('light', 10);
    for (let i = 1; i < Math.round(10 * HAND_OVER_AFTER_SECONDS); i++) seen.observe(nobody(), PICTURE);
    expect(() => seen.observe(nobody(), PICTURE)).toThrow(HandOver);
  });

  it('never hands over once one frame before the deadline keeps someone, and says it keeps the video from that frame', () => {
    const seen = new PeopleSeen('light', FPS);
    seen.observe(nobody(), PICTURE);
    expect(seen.keepsVideo).toBe(false);
    seen.observe(matteKeeping(PIXELS * KEPT_SHARE), PICTURE);
    expect(seen.keepsVideo).toBe(true);
    for (let i = 0; i < 3 * DEADLINE; i++) seen.observe(nobody(), PICTURE);
    expect(seen.atEnd()).toBeUndefined();
  });

  it('never hands over a video it was told to keep (a later chunk whose video kept someone at its start)', () => {
    const seen = new PeopleSeen('human', FPS, true);
    expect(seen.keepsVideo).toBe(true);
    for (let i = 0; i < 3 * DEADLINE; i++) seen.observe(nobody(), PICTURE);
    expect(seen.atEnd()).toBeUndefined();
  });

  it('hands over a video that ends before the deadline with no one kept', () => {
    const seen = new PeopleSeen('human', FPS);
    for (let i = 0; i < 5; i++) seen.observe(nobody(), PICTURE);
    expect(seen.atEnd()).toMatchObject({ model: 'original', note: NOTE });
  });

  it('does not count blank frames (a black lead-in, a flat card) toward the deadline, and hands over after half a second of picture', () => {
    const seen = new PeopleSeen('human', FPS);
    for (let i = 0; i < 3 * DEADLINE; i++) seen.observe(nobody(), i % 2 ? BLACK : pictureOf(() => [40, 200, 90]));
    for (let i = 1; i < DEADLINE; i++) seen.observe(nobody(), PICTURE);
    expect(seen.keepsVideo).toBe(false);
    expect(() => seen.observe(nobody(), PICTURE)).toThrow(HandOver);
  });

  it('hands nothing over at the end of a video that showed nothing but blank frames', () => {
    const seen = new PeopleSeen('light', FPS);
    for (let i = 0; i < 5; i++) seen.observe(nobody(), BLACK);
    expect(seen.atEnd()).toBeUndefined();
  });

  it('hands nothing over before any frame (a session closed early)', () => {
    expect(new PeopleSeen('light', FPS).atEnd()).toBeUndefined();
  });
});

describe('isBlank: a frame that shows nothing', () => {
  it.each([
    ['black', () => [0, 0, 0]],
    ["x264's black", () => [16, 16, 16]],
    ['a flat colour card', () => [200, 30, 60]],
    ['black with noise of +-3', (x: number, y: number) => [(x * 7 + y * 13) % 7, (x * 5 + y * 3) % 7, (x + y) % 7]],
  ] as Array<[string, (x: number, y: number) => [number, number, number]]>)('%s is blank', (_name, rgb) => {
    expect(isBlank(pictureOf(rgb))).toBe(true);
  });

  it('a dim gradient (deviation 11.5), and a deviation just over the bound, are not', () => {
    expect(isBlank(PICTURE)).toBe(false);
    // two halves BLANK_LUMA_DEVIATION + 0.5 apart from their mean: the deviation is just over the bound
    const half = BLANK_LUMA_DEVIATION + 0.5;
    expect(isBlank(pictureOf((x) => (x % 2 ? [100 + half, 100 + half, 100 + half] : [100 - half, 100 - half, 100 - half])))).toBe(false);
    const under = BLANK_LUMA_DEVIATION - 0.5;
    expect(isBlank(pictureOf((x) => (x % 2 ? [100 + under, 100 + under, 100 + under] : [100 - under, 100 - under, 100 - under])))).toBe(true);
  });

  it('samples the whole frame: a person-sized patch in a corner of a black 640x360 frame is a picture', () => {
    const data = Buffer.alloc(640 * 360 * 3);
    for (let y = 250; y < 360; y++) for (let x = 560; x < 640; x++) data.fill(180, (y * 640 + x) * 3, (y * 640 + x) * 3 + 3);
    expect(isBlank({ width: 640, height: 360, data })).toBe(false);
  });
});
