import { resizePlane } from '../image/resample';
import { estimateForegroundFlow, Region, valuesBounds, warpByField } from './foreground-flow';
import { LumaImage, estimateSubjectShift, Shift, shiftPlane } from './subject-motion';

/** Luma of packed RGB24 averaged over factor x factor blocks, in [0,1]. */
export function downsampledLuma(rgb: Uint8Array, width: number, height: number, factor: number): LumaImage {
  const w = Math.floor(width / factor);
  const h = Math.floor(height / factor);
  const data = new Float32Array(w * h);
  const norm = 1 / (255 * factor * factor);
  for (let y = 0; y < h; y++) {
    for (let fy = 0; fy < factor; fy++) {
      let src = ((y * factor + fy) * width) * 3;
      for (let x = 0; x < w; x++) {
        let sum = 0;
        for (let fx = 0; fx < factor; fx++, src += 3) sum += 0.299 * rgb[src] + 0.587 * rgb[src + 1] + 0.114 * rgb[src + 2];
        data[y * w + x] += sum * norm;
      }
    }
  }
  return { width: w, height: h, data };
}

/**
 * Carries a keyframe's matte to the following frames: by the subject's own motion field
 * (foreground-flow.ts), searched around its estimated translation, or (`flow: false`) by that
 * translation alone. Motion is estimated on luma downsampled by `factor`; the matte is moved at
 * its own resolution.
 *
 * The field follows a subject that changes shape where one translation drifts. The keyframe's
 * ISNet matte moved to the frames between its runs, scored against the true alpha (offline, ISNet
 * at 1024 in int8 on every 2nd frame, the frames between): DAVIS dog 0.810 -> 0.858, car-roundabout
 * 0.965 -> 0.971, bmx-trees 0.448 -> 0.466, car-slide 0.9323 -> 0.9316 (a rigid car, which one
 * translation fits); about 5-15 ms more a frame at 640x360.
 */
export class KeyframePropagator {
  private key?: {
    luma: LumaImage;
    maskSmall: Float32Array;
    matte: Float32Array;
    width: number;
    height: number;
    /** where the matte has values: the motion field's warp works only around them */
    bounds: Region | undefined;
  };
  private lastShift: Shift = { dx: 0, dy: 0 };

  constructor(
    private readonly factor: number,
    private readonly options: { flow: boolean } = { flow: true },
  ) {}

  get hasKeyframe(): boolean {
    return this.key !== undefined;
  }

  /** forgets the keyframe: the next frame that needs a matte starts from a new one */
  clear(): void {
    this.key = undefined;
    this.lastShift = { dx: 0, dy: 0 };
  }

  /** last estimated shift of the subject since the keyframe, in matte pixels */
  get shift(): Shift {
    return this.lastShift;
  }

  /** `luma`, where the caller has it, is `rgb`'s luma downsampled by the propagator's factor (lumaOf) */
  setKeyframe(rgb: Uint8Array, frameWidth: number, frameHeight: number, matte: Float32Array, matteWidth: number, matteHeight: number, luma = this.lumaOf(rgb, frameWidth, frameHeight)): void {
    const maskSmall = resizePlane({ width: matteWidth, height: matteHeight, data: matte }, luma.width, luma.height);
    const bounds = this.options.flow ? valuesBounds(matte, matteWidth, matteHeight) : undefined;
    this.key = { luma, maskSmall, matte: Float32Array.from(matte), width: matteWidth, height: matteHeight, bounds };
    this.lastShift = { dx: 0, dy: 0 };
  }

  /**
   * Follows the subject to the frame whose luma, downsampled by the propagator's factor, is `luma`:
   * its shift since the keyframe (`shift`), without moving the matte.
   */
  follow(luma: LumaImage): void {
    const key = this.keyframe();
    const toSmall = luma.width / key.width;
    const guess = { dx: this.lastShift.dx * toSmall, dy: this.lastShift.dy * toSmall };
    const found = estimateSubjectShift(key.luma, key.maskSmall, luma, guess);
    if (found) this.lastShift = { dx: found.dx / toSmall, dy: found.dy / toSmall };
  }

  /**
   * the keyframe matte moved to where the subject is in `rgb` (same size as the keyframe frame);
   * `luma`, where the caller has it, is `rgb`'s luma downsampled by the propagator's factor
   */
  propagate(rgb: Uint8Array, frameWidth: number, frameHeight: number, luma = this.lumaOf(rgb, frameWidth, frameHeight)): Float32Array {
    this.follow(luma);
    const key = this.keyframe();
    if (!this.options.flow) return shiftPlane(key.matte, key.width, key.height, this.lastShift);
    const toSmall = luma.width / key.width;
    const field = estimateForegroundFlow(key.luma, key.maskSmall, luma, { dx: this.lastShift.dx * toSmall, dy: this.lastShift.dy * toSmall });
    return warpByField(key.matte, key.width, key.height, field, luma.width, luma.height, key.bounds);
  }

  /** a frame's luma as the propagator reads it (downsampled by its factor) */
  private lumaOf(rgb: Uint8Array, frameWidth: number, frameHeight: number): LumaImage {
    return downsampledLuma(rgb, frameWidth, frameHeight, this.factor);
  }

  private keyframe(): NonNullable<KeyframePropagator['key']> {
    if (!this.key) throw new Error('no keyframe to propagate');
    return this.key;
  }
}
