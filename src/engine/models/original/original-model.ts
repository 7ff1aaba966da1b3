import { Matte, RgbFrame, SegmentationModel, SegmentationSession, SessionOptions } from '../../types';
import { toAlphaBytes } from '../image/resample';
import { IsnetSegmenter, isnetInputSizeFor } from '../isnet/isnet-segmenter';
import { KeyframePropagator } from '../temporal/keyframe-propagator';

/** ISNet runs on every `KEYFRAME_INTERVAL`-th frame; frames in between reuse the moved matte. */
export const KEYFRAME_INTERVAL = 4;
/**
 * weight of a new keyframe's ISNet matte against the previous keyframe's matte moved to it: an
 * average over keyframes removes part of the model's frame-to-frame noise (flicker), the new one
 * still decides wherever the two disagree
 */
const KEYFRAME_BLEND = 0.6;
/** motion is estimated on luma at 1/4 of the ISNet input (256 px wide for 1024) */
const MOTION_DOWNSAMPLING = 4;

export class OriginalSession implements SegmentationSession {
  readonly notes: string[] = [];
  /** how many frames ran ISNet (for benchmarks) */
  keyframes = 0;
  private readonly propagator = new KeyframePropagator(MOTION_DOWNSAMPLING);
  private framesSinceKeyframe = 0;

  constructor(private readonly isnet: IsnetSegmenter) {}

  get inputWidth(): number {
    return this.isnet.width;
  }

  get inputHeight(): number {
    return this.isnet.height;
  }

  get matteSize(): { width: number; height: number } {
    return { width: this.inputWidth, height: this.inputHeight };
  }

  async segment(frame: RgbFrame): Promise<Matte> {
    const { width, height } = this.isnet;
    let matte: Float32Array;
    if (!this.propagator.hasKeyframe || this.framesSinceKeyframe + 1 >= KEYFRAME_INTERVAL) {
      matte = await this.isnet.probabilities(frame.data);
      if (this.propagator.hasKeyframe) blendInto(matte, this.propagator.propagate(frame.data, width, height), KEYFRAME_BLEND);
      this.propagator.setKeyframe(frame.data, width, height, matte, width, height);
      this.framesSinceKeyframe = 0;
      this.keyframes++;
    } else {
      matte = this.propagator.propagate(frame.data, width, height);
      this.framesSinceKeyframe++;
    }
    return { width, height, data: toAlphaBytes(matte) };
  }

  async close(): Promise<void> {}
}

/** target = weight * target + (1 - weight) * other, in place */
export function blendInto(target: Float32Array, other: Float32Array, weight: number): Float32Array {
  for (let i = 0; i < target.length; i++) target[i] = weight * target[i] + (1 - weight) * other[i];
  return target;
}

/** `original`: ISNet (general subjects) on keyframes, motion-propagated in between. */
export class OriginalModel implements SegmentationModel {
  readonly name = 'original' as const;

  constructor(private readonly isnet: (size: { width: number; height: number }) => Promise<IsnetSegmenter>) {}

  async createSession(options: SessionOptions): Promise<SegmentationSession> {
    return new OriginalSession(await this.isnet(isnetInputSizeFor(options.width, options.height)));
  }
}
