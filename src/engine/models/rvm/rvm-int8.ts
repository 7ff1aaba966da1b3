import { onnx } from 'onnx-proto';
import { quantizableConvs, QuantizedConv, quantizeCalibrated } from '../onnx/qdq-quantizer';
import { hasInt8DotProduct } from '../runtime/cpu-features';
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

/**
 * RVM's fp32 ONNX graph with those convolutions quantised, activations at the calibrated ranges. A
 * convolution without calibrated ranges (a graph the calibration did not see) stays fp32.
 */
export function quantizeRvm(floatModel: Uint8Array): Uint8Array {
  return quantizeCalibrated(floatModel, rvmInt8Convs(onnx.ModelProto.decode(floatModel)), RVM_INT8_RANGES);
}

/**
 * The precision `light` and `human` run RVM at on this CPU: int8 where onnxruntime has 8-bit dot
 * products (runtime/cpu-features.ts), fp32 elsewhere. On portrait-pan, with VNNI (AMD EPYC) int8 kept
 * `light` at 0.952 (fp32 0.953) for about 20% less CPU; on an AVX2-only EPYC (Zen 3) it took `light`
 * to 0.934 against 0.952 and `human` to 0.975 against 0.977, for about 4% less CPU a run.
 */
export function rvmPrecision(int8DotProduct = hasInt8DotProduct()): 'int8' | 'float32' {
  return int8DotProduct ? 'int8' : 'float32';
}
