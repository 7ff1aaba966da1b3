import { toAlphaBytes } from '../../src/engine/models/image/resample';
import { SelfieSegmenter } from '../../src/engine/models/selfie/selfie-segmenter';
import { selfieInputSizeFor } from '../../src/engine/models/selfie/selfie-size';
import { SegmentationModel, SegmentationSession } from '../../src/engine/types';

/** MediaPipe's selfie model frame by frame with no memory: the flicker baseline for dtSSD */
export function perFrameSelfie(cacheDir: string): SegmentationModel {
  return {
    name: 'light',
    async createSession(options): Promise<SegmentationSession> {
      const size = selfieInputSizeFor(options.width, options.height);
      const selfie = await SelfieSegmenter.open('square', cacheDir, size);
      return {
        inputWidth: size.width,
        inputHeight: size.height,
        matteSize: size,
        notes: [],
        segment: async (frame) => ({ ...size, data: toAlphaBytes(await selfie.probabilities(frame.data)) }),
        close: () => selfie.close(),
      };
    },
  };
}
