/**
 * Which of ISNet's two input sizes runs on `original`'s next keyframe. The full size (1024x1024)
 * decides what is salient; a smaller one (640x640, 0.4x the CPU) sees the same subject on many
 * videos and loses it on others: measured on every 10th frame of nine clips (int8, whole frames),
 * where the two planes agree (IoU >= 0.95) the small one scores within 0.02 of the full one (DAVIS
 * dog 0.95 / 0.94, car-roundabout 0.98 / 0.98), while a car entering or leaving the frame is not
 * salient to it (car-slide's first and last frames: agreement 0.24 and 0.00).
 *
 * So a shot starts at the full size, and its first keyframe also runs the small size: where the
 * two agree, later keyframes run the small one. Every `CHECK_EVERY`-th of them runs the full size
 * too, as does a keyframe whose small plane disagrees with the last keyframe's matte moved to it
 * (`SUSPECT_BELOW`: the subject changed, or the small size lost it); the full plane is the one used
 * on those, and the shot goes back to the full size where the two planes disagree. At the full
 * size, every `CHECK_EVERY`-th keyframe also runs the small size, to turn to it where they agree.
 *
 * Measured against ISNet at the full size alone (bench:davis, whole clips, AMD EPYC Zen 5, 2 cores,
 * two interleaved rounds): DAVIS dog 277-288 -> 192-202 ms a frame (IoU 0.910 -> 0.916),
 * car-roundabout 166-177 -> 112-120 (0.970 -> 0.967, dtSSD 5.5 -> 6.0), car-slide 136-148 -> 128-129
 * (0.957 -> 0.960, dtSSD 2.7 -> 2.9); bmx-trees, kite-walk and swing, which stay at the full size,
 * the same mattes and time (the checks back off). The second session costs memory: a process
 * matting the whole dog clip peaks at 1291 MB of RSS against 1070.
 */

/** ISNet's small input size */
export const SMALL_ISNET_SIZE = { width: 640, height: 640 };
/** the two planes agree from this IoU (at 0.5) on: a shot turns to the small size */
export const SCALES_AGREE = 0.95;
/** ... and keep agreeing down to this one: the small size stays (checks compare one run of each, not a mean of two) */
export const SCALES_STILL_AGREE = 0.9;
/** a small plane that matches the moved matte less than this is checked at the full size */
export const SUSPECT_BELOW = 0.75;
/**
 * every this many keyframes, one runs both sizes; at the full size, twice as many after each check
 * that still disagrees, up to `CHECK_EVERY_MOST` (a video the small size never suits pays less and less)
 */
export const CHECK_EVERY = 8;
export const CHECK_EVERY_MOST = 64;

export type IsnetScale = 'full' | 'small';

export class IsnetScalePolicy {
  private small = false;
  private sinceCheck = 0;
  private checkEvery = CHECK_EVERY;

  /** the size the next keyframe runs first (its run may start ahead of its turn) */
  get next(): IsnetScale {
    return this.small ? 'small' : 'full';
  }

  /** a shot's first keyframe: its full plane and its small plane agreed this much */
  start(agreement: number): void {
    this.small = agreement >= SCALES_AGREE;
    this.sinceCheck = 0;
    this.checkEvery = CHECK_EVERY;
  }

  /** whether a keyframe that ran `next`, its plane matching the moved matte `movedAgreement`, must also run the other size */
  needsCheck(movedAgreement: number): boolean {
    this.sinceCheck++;
    return this.sinceCheck >= this.checkEvery || (this.small && movedAgreement < SUSPECT_BELOW);
  }

  /**
   * a check's result: the small and full planes of one keyframe agreed `agreement`, and the full one
   * matched the moved matte `fullMoved`. Where the full plane is as far from the moved matte as a
   * suspect small one (under `SUSPECT_BELOW`), the keyframe is odd at either size (a crop that cuts
   * the subject, something else salient for a frame) and says nothing about the small size: the size
   * stays. Its full plane is used all the same, and where the subject really changed, the next
   * keyframes compare the small size with a moved matte that comes from it.
   */
  checked(agreement: number, fullMoved: number): void {
    this.sinceCheck = 0;
    if (fullMoved < SUSPECT_BELOW) return;
    const wasSmall = this.small;
    this.small = agreement >= (wasSmall ? SCALES_STILL_AGREE : SCALES_AGREE);
    this.checkEvery = wasSmall || this.small ? CHECK_EVERY : Math.min(2 * this.checkEvery, CHECK_EVERY_MOST);
  }
}
