import { HandOver } from '../types';

/**
 * a frame shows someone when its matte keeps at least this share of its pixels (alpha >= 128): a
 * person 20x58 px in a 640x360 frame; RVM keeps about 0.1% of car-slide's car in a few specks
 */
export const KEPT_SHARE = 0.005;

/**
 * A people-only model that has kept no one in this much of the video hands it to `original`.
 * Where someone is in sight `human` and `light` keep them from the first frame (every DAVIS people
 * sequence, every composite, portrait-pan, and walkers.mp4's small pedestrians at 0.6-0.7% of the
 * frame); a video handed over has cost this much of the people-only model for nothing.
 */
export const HAND_OVER_AFTER_SECONDS = 0.5;

/**
 * Whether a people-only model (`light`, `human`) keeps anyone. A video where it sees no person
 * in its first half second (an animal, a product, a car, an empty room) would come out transparent but
 * for specks; it is handed to `original`, which keeps any subject, and the job's notes say so.
 * Someone who walks in later is a person to `original` too (its people take RVM's matte).
 * The half second is of picture: the session does not pass blank frames (an edited video's black
 * lead-in, a flat card: image/blank-frame.ts), so a video that opens on a second of black keeps its
 * people model.
 */
export class PeopleSeen {
  private frames = 0;
  private someone = false;
  private readonly deadline: number;

  /**
   * `fps`: the video's frame rate, which sets the deadline in frames; `keepVideo`: the video's start
   * was seen to keep someone already (a later chunk of a long job), so it is never handed over
   */
  constructor(
    private readonly model: 'light' | 'human',
    fps: number,
    keepVideo = false,
  ) {
    this.deadline = Math.max(1, Math.round(HAND_OVER_AFTER_SECONDS * (Number.isFinite(fps) && fps > 0 ? fps : 25)));
    this.someone = keepVideo;
  }

  /** someone was kept: the video will not be handed over */
  get keepsVideo(): boolean {
    return this.someone;
  }

  /** `alpha`: the next frame of picture's output matte, 0..255; throws a HandOver once the deadline's frames kept no one */
  observe(alpha: Uint8Array): void {
    this.frames++;
    this.someone ||= keepsSomeone(alpha);
    if (!this.someone && this.frames >= this.deadline) throw this.handOver();
  }

  /** a video that ended before the deadline with no one kept is handed over too (one that showed nothing is not) */
  atEnd(): HandOver | undefined {
    return this.frames > 0 && !this.someone ? this.handOver() : undefined;
  }

  private handOver(): HandOver {
    return new HandOver('original', `${this.model}: no person in sight in the first half second, so original matted the video instead (it keeps any subject; light and human keep people only)`);
  }
}

function keepsSomeone(alpha: Uint8Array): boolean {
  const needed = Math.max(1, Math.ceil(alpha.length * KEPT_SHARE));
  let kept = 0;
  for (let i = 0; i < alpha.length && kept < needed; i++) if (alpha[i] >= 128) kept++;
  return kept >= needed;
}
