import { KEPT_SHARE, PeopleSeen } from '../../../src/engine/models/people-seen';

const PIXELS = 10_000;
const matteKeeping = (pixels: number) => Uint8Array.from({ length: PIXELS }, (_, i) => (i < pixels ? 255 : 0));
const NOTE = 'human: no person in sight, so the output is (nearly) transparent (light and human keep people only; original, the default, keeps any subject)';

describe('PeopleSeen: the note of a people-only model that kept no one', () => {
  it('notes a video whose every frame keeps less than the share that makes someone', () => {
    const seen = new PeopleSeen('human');
    for (let i = 0; i < 5; i++) seen.observe(matteKeeping(PIXELS * KEPT_SHARE - 1));
    expect(seen.notes).toEqual([NOTE]);
  });

  it('says nothing once one frame keeps someone, before or after the empty ones', () => {
    const later = new PeopleSeen('light');
    later.observe(matteKeeping(0));
    later.observe(matteKeeping(PIXELS * KEPT_SHARE));
    later.observe(matteKeeping(0));
    expect(later.notes).toEqual([]);
  });

  it('says nothing before any frame (a session closed early)', () => {
    expect(new PeopleSeen('light').notes).toEqual([]);
  });
});
