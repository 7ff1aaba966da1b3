import { readFileSync } from 'fs';
import { join } from 'path';
import { onnx } from 'onnx-proto';
import { cachedModelFile } from '../runtime/model-file-cache';
import { assembleIsnet } from './isnet-assets';
import { acceptRgbBytes, convertToFloat32, ISNET_OUTPUT, keepSingleOutput, removeUnusedNodes, retargetResizeSizes } from './isnet-graph';
import { quantizeIsnet } from './isnet-int8';

/** bump when the graph rewrites change, so stale cached models are not reused */
const REWRITE_REVISION = 5;
/** bump when the int8 selection, the quantiser or the calibrated ranges change */
const QUANTIZER_REVISION = 3;

export interface IsnetInputSize {
  height: number;
  width: number;
  /** int8: the convolutions picked in isnet-int8.ts quantised (default float32) */
  precision?: 'float32' | 'int8';
}

/**
 * ISNet (fp32, uint8 RGB NHWC input, one output) for one input size, cached as
 * `<cacheDir>/isnet-fp32-<H>x<W>-r<revision>.onnx`; the chunks are joined into
 * `<cacheDir>/isnet-medium.onnx` first. Sizes must be multiples of 32. In int8, that model
 * quantised, cached beside it with `-int8q<revision>`.
 */
export function prepareIsnetModel(cacheDir: string, size: IsnetInputSize): string {
  if (size.height % 32 || size.width % 32) throw new RangeError(`ISNet input ${size.width}x${size.height} is not a multiple of 32`);
  const target = join(cacheDir, `isnet-fp32-${size.height}x${size.width}-r${REWRITE_REVISION}.onnx`);
  if (size.precision === 'int8') {
    const quantized = join(cacheDir, `isnet-${size.height}x${size.width}-r${REWRITE_REVISION}-int8q${QUANTIZER_REVISION}.onnx`);
    return cachedModelFile(quantized, () => quantizeIsnet(readFileSync(prepareIsnetModel(cacheDir, { ...size, precision: 'float32' }))));
  }
  return cachedModelFile(target, () => {
    const model = onnx.ModelProto.decode(readFileSync(assembleIsnet('medium', cacheDir)));
    convertToFloat32(model);
    keepSingleOutput(model, ISNET_OUTPUT);
    removeUnusedNodes(model);
    retargetResizeSizes(model, size.height, size.width);
    acceptRgbBytes(model, size.height, size.width);
    return onnx.ModelProto.encode(model).finish();
  });
}
