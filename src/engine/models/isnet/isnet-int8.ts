import { onnx } from 'onnx-proto';
import { quantizableConvs, QuantizedConv, quantizeCalibrated, rangeKey } from '../onnx/qdq-quantizer';
import { ISNET_INT8_RANGES } from './isnet-int8-ranges';

/**
 * Which of ISNet's convolutions run in int8 (onnxruntime's QLinearConv, VNNI on the AMD EPYC): all
 * 113 but the first one (on the 3-channel image), which stays fp32.
 * Measured at 1024x1024 by bench/quality/isnet-precision.ts (2 threads, median CPU ms per run, fp32
 * and int8 in turn on the same frames, load 4.5): fp32 3262 ms, int8 1314 ms (2.5x less). Ranges
 * at the 99.99th percentile: mean |diff| 2-6e-4, 0.01-0.06% of pixels across 0.5 on car-slide and
 * portrait-pan frames; plain min/max ranges were 3-20x worse (up to 0.44% across 0.5). `original`
 * (bench:davis, whole clips) kept its IoU to the third decimal: car-slide 0.955, portrait-pan 0.972,
 * dog 0.862, car-roundabout 0.971, bmx-trees 0.499 -> 0.500, kite-walk 0.610. Giving each MaxPool
 * its input's range (so onnxruntime pools uint8) was no faster and was left out.
 *
 * The output head (64 channels to the one foreground logit, at half the input size) joined them on
 * 27 November 2026: in fp32 it cost 41 ms a run, plus 16-19 ms to turn its 64-channel input from
 * the int8 convolutions' channels-last layout into fp32's; in int8 it reads that input as it is and
 * costs 27 ms. A run at 1024x1024 went from 651-662 to 609-627 ms (interleaved, 6 frames of
 * car-slide, portrait-pan and DAVIS dog), at a mean |diff| from fp32 of 8.2e-4 against 7.9e-4 and
 * 0.055% of pixels across 0.5 against 0.052%. Giving the head 16 output channels (MLAS's block)
 * and keeping the first was no faster.
 */
export function isnetInt8Convs(model: onnx.IModelProto): QuantizedConv[] {
  return quantizableConvs(model, (_node, [, inChannels]) => inChannels >= 16);
}

/**
 * The range of the head's output, the foreground logit, is set rather than calibrated: its
 * percentile range over the calibration frames (-270 to 16) spends the 256 levels on background
 * far past saturation, a step of 1.1 (0.13% of pixels across 0.5). At +-16 the step is 0.125 and
 * what is clamped lies within 1e-7 of 0 or 1 after the sigmoid.
 */
export const ISNET_LOGIT_RANGE: [number, number] = [-16, 16];

/**
 * ISNet's fp32 graph with those convolutions quantised, activations at the calibrated ranges (the
 * logit at ISNET_LOGIT_RANGE). A convolution without calibrated ranges stays fp32.
 */
export function quantizeIsnet(floatModel: Uint8Array, table: Record<string, [number, number]> = ISNET_INT8_RANGES): Uint8Array {
  const model = onnx.ModelProto.decode(floatModel);
  const convs = isnetInt8Convs(model);
  const weights = new Map(model.graph!.initializer!.map((t) => [t.name!, t]));
  const heads = convs.filter((c) => Number(weights.get(c.node.input![1])!.dims![0]) === 1);
  return quantizeCalibrated(floatModel, convs, { ...table, ...Object.fromEntries(heads.map((head) => [rangeKey(head, 'output'), ISNET_LOGIT_RANGE])) });
}
