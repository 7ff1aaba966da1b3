/**
 * a frame shows someone when its matte keeps at least this share of its pixels (alpha >= 128): a
 * person 20x58 px in a 640x360 frame; RVM keeps about 0.1% of car-slide's car in a few specks
 */
export const KEPT_SHARE = 0.005;

/**
 * Whether a people-only model (`light`, `human`) kept anyone: a video where it found no person at
 * all (an animal, a product, an empty room) comes out transparent, but for specks, and the job says
 * why in its notes instead of leaving the client to guess.
 */
export class PeopleSeen {
  private observed = false;
  private someone = false;

  constructor(private readonly model: 'light' | 'human') {}

  /** `alpha`: the frame's output matte, 0..255 */
  observe(alpha: Uint8Array): void {
    this.observed = true;
    if (this.someone) return; // one frame with someone settles it
    const needed = Math.max(1, Math.ceil(alpha.length * KEPT_SHARE));
    let kept = 0;
    for (let i = 0; i < alpha.length && kept < needed; i++) if (alpha[i] >= 128) kept++;
    this.someone = kept >= needed;
  }

  get notes(): string[] {
    if (!this.observed || this.someone) return [];
    return [`${this.model}: no person in sight, so the output is (nearly) transparent (light and human keep people only; original, the default, keeps any subject)`];
  }
}
