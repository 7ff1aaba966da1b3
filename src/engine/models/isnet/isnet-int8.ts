import { onnx } from 'onnx-proto';
import { quantizableConvs, QuantizedConv, quantizeCalibrated } from '../onnx/qdq-quantizer';
import { ISNET_INT8_RANGES } from './isnet-int8-ranges';

/**
 * Which of ISNet's convolutions run in int8 (onnxruntime's QLinearConv, VNNI on the AMD EPYC): all
 * 112 but the first one (on the 3-channel image) and the output head (1 channel), which stay fp32.
 * Measured at 1024x1024 by bench/quality/isnet-precision.ts (2 threads, median CPU ms per run, fp32
 * and int8 in turn on the same frames, load 4.5): fp32 3262 ms, int8 1314 ms (2.5x less). Ranges
 * at the 99.99th percentile: mean |diff| 2-6e-4, 0.01-0.06% of pixels across 0.5 on car-slide and
 * portrait-pan frames; plain min/max ranges were 3-20x worse (up to 0.44% across 0.5). `original`
 * (bench:davis, whole clips) kept its IoU to the third decimal: car-slide 0.955, portrait-pan 0.972,
 * dog 0.862, car-roundabout 0.971, bmx-trees 0.499 -> 0.500, kite-walk 0.610. Giving each MaxPool
 * its input's range (so onnxruntime pools uint8) was no faster and was left out.
 */
export function isnetInt8Convs(model: onnx.IModelProto): QuantizedConv[] {
  return quantizableConvs(model, (_node, [outChannels, inChannels]) => inChannels >= 16 && outChannels >= 16);
}

/**
 * ISNet's fp32 graph with those convolutions quantised, activations at the calibrated ranges. A
 * convolution without calibrated ranges stays fp32.
 */
export function quantizeIsnet(floatModel: Uint8Array, table: Record<string, [number, number]> = ISNET_INT8_RANGES): Uint8Array {
  return quantizeCalibrated(floatModel, isnetInt8Convs(onnx.ModelProto.decode(floatModel)), table);
}
