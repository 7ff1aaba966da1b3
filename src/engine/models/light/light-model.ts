import { Matte, RgbFrame, SegmentationModel, SegmentationSession, SessionOptions } from '../../types';
import { toAlphaBytes } from '../image/resample';
import { SelfieSegmenter, selfieVariantFor } from '../selfie/selfie-segmenter';
import { AdaptiveEma } from '../temporal/adaptive-ema';

export class LightSession implements SegmentationSession {
  readonly notes: string[] = [];
  private readonly smoother = new AdaptiveEma(0.35, 0.5);

  constructor(private readonly segmenter: SelfieSegmenter) {}

  get inputWidth(): number {
    return this.segmenter.width;
  }

  get inputHeight(): number {
    return this.segmenter.height;
  }

  async segment(frame: RgbFrame): Promise<Matte> {
    const probabilities = await this.segmenter.probabilities(frame.data);
    const smoothed = this.smoother.update(probabilities);
    return { width: this.segmenter.width, height: this.segmenter.height, data: toAlphaBytes(smoothed) };
  }

  async close(): Promise<void> {}
}

/** `light`: MediaPipe selfie segmentation on every frame, smoothed over time. */
export class LightModel implements SegmentationModel {
  readonly name = 'light' as const;
  private readonly segmenters = new Map<string, Promise<SelfieSegmenter>>();

  constructor(private readonly cacheDir: string) {}

  async createSession(options: SessionOptions): Promise<SegmentationSession> {
    const variant = selfieVariantFor(options.width, options.height);
    let segmenter = this.segmenters.get(variant);
    if (!segmenter) {
      segmenter = SelfieSegmenter.open(variant, this.cacheDir);
      this.segmenters.set(variant, segmenter);
    }
    return new LightSession(await segmenter);
  }
}
