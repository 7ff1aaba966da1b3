import { HandOver, RgbFrame } from '../types';

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
 * a frame whose luma varies less than this (standard deviation, of 255) shows nothing: black, a
 * flat colour card. Every frame of the clips in ../shared/media and DAVIS varies by 36-80; a one-second
 * fade from black over portrait-pan passes 4 within its first eighth (6.9 at its 4th frame)
 */
export const BLANK_LUMA_DEVIATION = 4;

/** a frame, packed RGB24 (RgbFrame's picture) */
export type Picture = Pick<RgbFrame, 'width' | 'height' | 'data'>;

/**
 * Whether a people-only model (`light`, `human`) keeps anyone. A video where it sees no person
 * in its first half second (an animal, a product, a car, an empty room) would come out transparent but
 * for specks; it is handed to `original`, which keeps any subject, and the job's notes say so.
 * Someone who walks in later is a person to `original` too (its people take RVM's matte).
 * The half second is of picture: blank frames (an edited video's black lead-in, a flat card) show
 * no one and do not count, so a video that opens on a second of black keeps its people model.
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

  /**
   * `alpha`: the next frame's output matte, 0..255; `picture`: the frame, at any size. Throws a
   * HandOver once the deadline's frames of picture kept no one.
   */
  observe(alpha: Uint8Array, picture: Picture): void {
    this.someone ||= keepsSomeone(alpha);
    if (this.someone || isBlank(picture)) return;
    this.frames++;
    if (this.frames >= this.deadline) throw this.handOver();
  }

  /** a video that ended before the deadline with no one kept is handed over too (one that showed nothing is not) */
  atEnd(): HandOver | undefined {
    return this.frames > 0 && !this.someone ? this.handOver() : undefined;
  }

  private handOver(): HandOver {
    return new HandOver('original', `${this.model}: no person in sight in the first half second, so original matted the video instead (it keeps any subject; light and human keep people only)`);
  }
}

/** the luma's standard deviation over a grid of about 64x36 pixels is under BLANK_LUMA_DEVIATION */
export function isBlank(picture: Picture): boolean {
  const { width, height, data } = picture;
  const stepX = Math.max(1, Math.floor(width / 64));
  const stepY = Math.max(1, Math.floor(height / 36));
  let count = 0;
  let sum = 0;
  let squares = 0;
  for (let y = stepY >> 1; y < height; y += stepY) {
    for (let x = stepX >> 1; x < width; x += stepX) {
      const at = (y * width + x) * 3;
      const luma = 0.299 * data[at] + 0.587 * data[at + 1] + 0.114 * data[at + 2];
      count++;
      sum += luma;
      squares += luma * luma;
    }
  }
  const mean = sum / count;
  return count > 0 && squares / count - mean * mean < BLANK_LUMA_DEVIATION ** 2;
}

function keepsSomeone(alpha: Uint8Array): boolean {
  const needed = Math.max(1, Math.ceil(alpha.length * KEPT_SHARE));
  let kept = 0;
  for (let i = 0; i < alpha.length && kept < needed; i++) if (alpha[i] >= 128) kept++;
  return kept >= needed;
}
