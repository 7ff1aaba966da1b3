import { Matte, RgbFrame, SegmentationModel, SegmentationSession, SessionOptions } from '../../types';
import { toAlphaBytes } from '../image/resample';
import { SelfieSegmenter } from '../selfie/selfie-segmenter';
import { selfieInputSizeFor } from '../selfie/selfie-size';
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

  get matteSize(): { width: number; height: number } {
    return { width: this.inputWidth, height: this.inputHeight };
  }

  async segment(frame: RgbFrame): Promise<Matte> {
    const probabilities = await this.segmenter.probabilities(frame.data);
    const smoothed = this.smoother.update(probabilities);
    return { width: this.segmenter.width, height: this.segmenter.height, data: toAlphaBytes(smoothed) };
  }

  async close(): Promise<void> {}
}

/**
 * `light`: MediaPipe's general selfie model on every frame at an aspect-preserving input (see
 * selfie-size.ts), smoothed over time; the matte stays at the model's resolution (the pipeline's
 * scaler upsamples it).
 */
export class LightModel implements SegmentationModel {
  readonly name = 'light' as const;

  constructor(private readonly selfie: (size: { width: number; height: number }) => Promise<SelfieSegmenter>) {}

  async createSession(options: SessionOptions): Promise<SegmentationSession> {
    return new LightSession(await this.selfie(selfieInputSizeFor(options.width, options.height)));
  }
}
