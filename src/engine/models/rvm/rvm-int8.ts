import { onnx } from 'onnx-proto';
import { quantizableConvs, QuantizedConv, quantizeConvs, TensorRange } from '../onnx/qdq-quantizer';
import { RVM_INT8_RANGES } from './rvm-int8-ranges';

/**
 * Which of RVM's convolutions run in int8 (onnxruntime's QLinearConv, VNNI on the AMD EPYC).
 * Measured at 640x360, encoder 480 px (CPU ms per run on one thread, loaded machine; portrait-pan IoU
 * of the raw matte): fp32 131 ms, 0.9726. Every convolution but the recurrent ConvGRU, the
 * squeeze-excitation and the output head lost 0.008 IoU, through the first one (on the image),
 * which the channel rule below excludes. Convolutions with few output channels (the decoder's last
 * two, 16) were no faster in int8 and ones on the 3-channel image slower, so both stay fp32. The
 * ConvGRU stays fp32 because its error would be carried from frame to frame in the state. The rule:
 * 113-129 ms, 0.9722; at `light`'s 384x216, encoder 256 px: 37.0 -> 29.4 ms, 0.9516 -> 0.9510.
 */
export function rvmInt8Convs(model: onnx.IModelProto): QuantizedConv[] {
  return quantizableConvs(model, (node, [outChannels, inChannels]) => {
    if (/conv_gru|squeeze_excitation/.test(node.name ?? '')) return false;
    return inChannels >= 16 && outChannels >= 32;
  });
}

/** the calibration table's keys: ranges belong to a convolution (names stable across sizes), not to a tensor */
export const rangeKey = (conv: QuantizedConv, side: 'input' | 'output'): string => `${conv.node.name}:${side}`;

/**
 * RVM's fp32 ONNX graph with those convolutions quantised, activations at the calibrated ranges. A
 * convolution without calibrated ranges (a graph the calibration did not see) stays fp32.
 */
export function quantizeRvm(floatModel: Uint8Array): Uint8Array {
  const convs = rvmInt8Convs(onnx.ModelProto.decode(floatModel)).filter((c) => rangeKey(c, 'input') in RVM_INT8_RANGES && rangeKey(c, 'output') in RVM_INT8_RANGES);
  const ranges = new Map<string, TensorRange>();
  for (const conv of convs) {
    for (const side of ['input', 'output'] as const) {
      const [min, max] = RVM_INT8_RANGES[rangeKey(conv, side)];
      const seen = ranges.get(conv[side]);
      ranges.set(conv[side], seen ? { min: Math.min(seen.min, min), max: Math.max(seen.max, max) } : { min, max });
    }
  }
  return quantizeConvs(floatModel, convs, ranges);
}
