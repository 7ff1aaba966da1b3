/**
 * How often `original` runs ISNet on a subject it keeps: every 2nd frame while the previous
 * keyframe's matte, moved with the subject, still agrees with ISNet's new one; every frame while
 * it does not (the subject changes shape: a running animal, a rider pedalling). Measured on DAVIS
 * (IoU at 0.5 of the moved matte against ISNet's new one, one frame on): dog 0.80-0.90, with drops
 * to 0.43; car-roundabout 0.95-0.99. The dog's whole-clip IoU was 0.862 with ISNet on every 2nd
 * frame and 0.910 on every frame (at 1.7x the CPU); the car keeps every 2nd frame.
 */
export const SALIENT_INTERVALS = { rigid: 2, deforming: 1 } as const;
/** below this agreement (over the last keyframes) the subject counts as deforming */
export const DEFORMING_BELOW = 0.92;
/** ... and from this one on as rigid again (hysteresis: the interval does not flip on noise) */
export const RIGID_FROM = 0.95;
/** the agreement that decides is the median of the last `WINDOW` keyframes' */
const WINDOW = 3;

/**
 * A subject counts as rigid until keyframes show otherwise, and one keyframe alone does not switch
 * it either way: the median of the last three agreements decides (the window starts full of
 * `RIGID_FROM`). One low agreement is often no change of shape: the second ISNet run of a clip
 * differs most from the first (car-slide: 0.889, then 0.95-0.99), and a subject leaving the frame
 * drops it to 0. On the car-slide composite ISNet on every frame scores lower (0.944) than on every
 * 2nd (0.956): its frame-to-frame noise is averaged out less.
 */
export class SalientInterval {
  private recent: number[] = Array<number>(WINDOW).fill(RIGID_FROM);
  private current: number = SALIENT_INTERVALS.rigid;

  /** frames from one ISNet run to the next */
  get frames(): number {
    return this.current;
  }

  /** one keyframe's agreement (0..1) between the moved previous matte and ISNet's new one */
  observe(agreement: number): void {
    this.recent = [...this.recent.slice(1 - WINDOW), agreement];
    const median = [...this.recent].sort((a, b) => a - b)[(WINDOW - 1) / 2];
    if (median < DEFORMING_BELOW) this.current = SALIENT_INTERVALS.deforming;
    else if (median >= RIGID_FROM) this.current = SALIENT_INTERVALS.rigid;
  }

  /** a new subject (or none): back to the default */
  reset(): void {
    this.recent = Array<number>(WINDOW).fill(RIGID_FROM);
    this.current = SALIENT_INTERVALS.rigid;
  }
}
