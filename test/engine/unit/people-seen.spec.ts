import { HAND_OVER_AFTER_SECONDS, KEPT_SHARE, PeopleSeen } from '../../../src/engine/models/people-seen';
import { HandOver } from '../../../src/engine/types';

const PIXELS = 10_000;
const FPS = 25;
const DEADLINE = Math.round(HAND_OVER_AFTER_SECONDS * FPS);
const matteKeeping = (pixels: number) => Uint8Array.from({ length: PIXELS }, (_, i) => (i < pixels ? 255 : 0));
const nobody = () => matteKeeping(PIXELS * KEPT_SHARE - 1);
const NOTE =
  "human: no person in sight in the first half second, so original matted the video instead (it keeps any subject; light and human keep people only)";

describe('PeopleSeen: a people-only model that keeps no one hands the video to original', () => {
  it("hands over on the deadline's frame, not before, when every frame keeps less than the share that makes someone", () => {
    const seen = new PeopleSeen('human', FPS);
    for (let i = 1; i < DEADLINE; i++) seen.observe(nobody());
    let thrown: unknown;
    try {
      seen.observe(nobody());
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(HandOver);
    expect(thrown).toMatchObject({ model: 'original', note: NOTE });
  });

  it('counts the deadline in frames of the video: half a second at its frame rate', () => {
    const seen = new PeopleSeen('light', 10);
    for (let i = 1; i < Math.round(10 * HAND_OVER_AFTER_SECONDS); i++) seen.observe(nobody());
    expect(() => seen.observe(nobody())).toThrow(HandOver);
  });

  it('never hands over once one frame before the deadline keeps someone, and says it keeps the video from that frame', () => {
    const seen = new PeopleSeen('light', FPS);
    seen.observe(nobody());
    expect(seen.keepsVideo).toBe(false);
    seen.observe(matteKeeping(PIXELS * KEPT_SHARE));
    expect(seen.keepsVideo).toBe(true);
    for (let i = 0; i < 3 * DEADLINE; i++) seen.observe(nobody());
    expect(seen.atEnd()).toBeUndefined();
  });

  it('never hands over a video it was told to keep (a later chunk whose video kept someone at its start)', () => {
    const seen = new PeopleSeen('human', FPS, true);
    expect(seen.keepsVideo).toBe(true);
    for (let i = 0; i < 3 * DEADLINE; i++) seen.observe(nobody());
    expect(seen.atEnd()).toBeUndefined();
  });

  it('hands over a video that ends before the deadline with no one kept', () => {
    const seen = new PeopleSeen('human', FPS);
    for (let i = 0; i < 5; i++) seen.observe(nobody());
    expect(seen.atEnd()).toMatchObject({ model: 'original', note: NOTE });
  });

  it('hands nothing over before any frame (a session closed early)', () => {
    expect(new PeopleSeen('light', FPS).atEnd()).toBeUndefined();
  });
});
