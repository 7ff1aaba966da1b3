import { onnx } from 'onnx-proto';
import { quantizableConvs, QuantizedConv, quantizeConvs, TensorRange } from '../onnx/qdq-quantizer';
import { ISNET_INT8_RANGES } from './isnet-int8-ranges';

/**
 * Which of ISNet's convolutions run in int8 (onnxruntime's QLinearConv). The first one (on the
 * 3-channel image) and the side heads (1 output channel) stay fp32.
 */
export function isnetInt8Convs(model: onnx.IModelProto): QuantizedConv[] {
  return quantizableConvs(model, (_node, [outChannels, inChannels]) => inChannels >= 16 && outChannels >= 16);
}

/** the calibration table's keys: ranges belong to a convolution, not to a tensor */
export const rangeKey = (conv: QuantizedConv, side: 'input' | 'output'): string => `${conv.node.name}:${side}`;

/**
 * ISNet's fp32 graph with those convolutions quantised, activations at the calibrated ranges. A
 * convolution without calibrated ranges stays fp32.
 */
export function quantizeIsnet(floatModel: Uint8Array, table: Record<string, [number, number]> = ISNET_INT8_RANGES): Uint8Array {
  const convs = isnetInt8Convs(onnx.ModelProto.decode(floatModel)).filter((c) => rangeKey(c, 'input') in table && rangeKey(c, 'output') in table);
  const ranges = new Map<string, TensorRange>();
  for (const conv of convs) {
    for (const side of ['input', 'output'] as const) {
      const [min, max] = table[rangeKey(conv, side)];
      const seen = ranges.get(conv[side]);
      ranges.set(conv[side], seen ? { min: Math.min(seen.min, min), max: Math.max(seen.max, max) } : { min, max });
    }
  }
  return quantizeConvs(floatModel, convs, ranges);
}
