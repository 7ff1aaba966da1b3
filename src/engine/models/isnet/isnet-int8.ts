import { onnx } from 'onnx-proto';
import { quantizableConvs, QuantizedConv, quantizeCalibrated, rangeKey } from '../onnx/qdq-quantizer';
import { splitSingleOutputConvs } from '../onnx/tap-split';
import { ISNET_INT8_RANGES } from './isnet-int8-ranges';

/**
 * Which of ISNet's convolutions run in int8 (onnxruntime's QLinearConv, VNNI on the AMD EPYC): all
 * but the first one (on the 3-channel image), which stays fp32: 99 of 100 since the first decoder
 * stage is pruned (isnet-graph.ts, ISNET_OUTPUT; 113 of 114 before).
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
 * and keeping the first was no faster: nearly all of its 27 ms was onnxruntime laying its input out
 * nine times over for the 3x3 kernel. That evening the head became a 1x1 convolution to its nine
 * taps and their shifted sum (onnx/tap-split.ts, ISNET_HEAD_TAP_RANGE below): a run 431 -> 405 ms
 * (AMD EPYC Zen 5, medians of four interleaved sets of five runs). The first convolution in int8
 * as well, reading the image bytes as they are (their normalisation is a dequantisation), made a
 * run about 4% shorter (425 -> 408 ms) but moved the mask further from fp32 (mean |diff| 4.90e-4 ->
 * 5.85e-4, pixels across 0.5 0.045% -> 0.054%): its 27 weights per channel in 8 bits. Left fp32.
 */
export function isnetInt8Convs(model: onnx.IModelProto): QuantizedConv[] {
  return quantizableConvs(model, (_node, [, inChannels]) => inChannels >= 16);
}

/**
 * The range of the head's nine taps (tap-split.ts: ISNet's head, 64 channels to the foreground
 * logit, as a 1x1 convolution to its taps and their shifted sum, 26 -> about 6 ms a run), set rather
 * than calibrated, as the logit's was: the logit's percentile range over the calibration frames
 * (-270 to 16) spends the levels on background far past saturation. Measured on 6 frames of
 * car-slide, portrait-pan and DAVIS dog at 1024x1024 (mean |diff| from fp32, pixels across 0.5):
 * +-8 4.90e-4 and 0.045%, +-12 5.01e-4 and 0.047%, +-16 5.15e-4 and 0.048%, +-24 5.57e-4 and
 * 0.053%; the head as one int8 convolution with its logit at +-16 4.97e-4 and 0.045%.
 */
export const ISNET_HEAD_TAP_RANGE: [number, number] = [-8, 8];

/**
 * ISNet's fp32 graph with those convolutions quantised, activations at the calibrated ranges (the
 * head's taps at ISNET_HEAD_TAP_RANGE, its sum in float). A convolution without calibrated ranges
 * stays fp32.
 */
export function quantizeIsnet(floatModel: Uint8Array, table: Record<string, [number, number]> = ISNET_INT8_RANGES): Uint8Array {
  const model = onnx.ModelProto.decode(floatModel);
  const heads = splitSingleOutputConvs(model);
  const convs = isnetInt8Convs(model);
  const setRanges = Object.fromEntries(convs.filter((conv) => heads.includes(conv.node.name!)).map((head) => [rangeKey(head, 'output'), ISNET_HEAD_TAP_RANGE]));
  return quantizeCalibrated(onnx.ModelProto.encode(model).finish(), convs, { ...table, ...setRanges });
}
