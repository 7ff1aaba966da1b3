import { readFileSync } from 'fs';
import { dirname, join } from 'path';
import { EngineError } from '../../types';
import { cachedModelFile } from '../runtime/model-file-cache';
import { readTfliteModel } from '../tflite/tflite-model';
import { convertTfliteToOnnx } from '../tflite/tflite-to-onnx';

/** MediaPipe selfie segmentation: `square` is 256x256, `landscape` 144x256 (H x W). */
export type SelfieVariant = 'square' | 'landscape';

export const SELFIE_NATIVE_SIZE: Record<SelfieVariant, { height: number; width: number }> = {
  square: { height: 256, width: 256 },
  landscape: { height: 144, width: 256 },
};

/** bump when the converter's output changes, so stale cached conversions are not reused */
const CONVERTER_REVISION = 2;

export function selfieTflitePath(variant: SelfieVariant): string {
  let dir: string;
  try {
    dir = dirname(require.resolve('@mediapipe/selfie_segmentation/package.json'));
  } catch {
    throw new EngineError('model_unavailable', 'the npm package @mediapipe/selfie_segmentation is not installed');
  }
  return join(dir, variant === 'square' ? 'selfie_segmentation.tflite' : 'selfie_segmentation_landscape.tflite');
}

/**
 * Converts the selfie model to ONNX (uint8 RGB input, NHWC) for the given input size and caches
 * it as `<cacheDir>/selfie-<variant>-<H>x<W>-r<revision>.onnx`. Returns its path.
 */
export function prepareSelfieModel(variant: SelfieVariant, cacheDir: string, size = SELFIE_NATIVE_SIZE[variant]): string {
  const target = join(cacheDir, `selfie-${variant}-${size.height}x${size.width}-r${CONVERTER_REVISION}.onnx`);
  return cachedModelFile(target, () =>
    convertTfliteToOnnx(readTfliteModel(readFileSync(selfieTflitePath(variant))), { inputHeight: size.height, inputWidth: size.width, rgbBytesInput: true }),
  );
}
