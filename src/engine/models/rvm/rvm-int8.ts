import { onnx } from 'onnx-proto';
import { quantizableConvs, QuantizedConv, quantizeCalibrated } from '../onnx/qdq-quantizer';
import { foldUpsampledConvs } from '../onnx/upsample-conv-fold';
import { mergeSideConvsIntoPhases } from '../onnx/phase-conv-merge';
import { Int8Arithmetic } from '../runtime/cpu-features';
import { RVM_INT8_RANGES } from './rvm-int8-ranges';

/**
 * The fewest multiply-adds per output value (input channels x kernel area) of a convolution in
 * int8. Its way in and out of int8 costs the same per value whatever the convolution does:
 * quantising its input, dequantising its output, and the layout changes around it (NHWC for
 * QLinearConv, onnxruntime's blocked NCHW for the float convolutions beside it). The encoder's 1x1
 * expansions of 16-120 channels and the decoder's 3x3 on 16 channels at half the input size lost
 * more there than int8 won. On an Intel Xeon with AVX-512 VNNI, at `human`'s 640x360 on one thread,
 * leaving them in fp32 took one run from 156 to 149-153 ms of CPU (fp32 throughout: 165;
 * interleaved medians; wall time 1-8% less in five sets), and its alpha 3x closer to fp32's (mean
 * |diff| 2.1e-4 against 6.9e-4 over 30 frames of portrait-pan). Through the engine `human` went
 * from 0.9762 to 0.9767 on portrait-pan and from 0.875 / 0.820 / 0.907 to 0.877 / 0.821 / 0.912 on
 * DAVIS rollerblade / swing / breakdance-flare; `light` from 0.9491 to 0.9507 at the same cost (one
 * run 32 ms of CPU either way, fp32 39).
 */
const MIN_INT8_MACS_PER_OUTPUT = 160;

/**
 * The fewest output channels of a convolution in int8: the decoder's last convolutions have 16.
 * On an AMD EPYC with AVX-512 VNNI (Zen 4) they run about 3x faster in int8 at 640x360 (the output
 * block's 3x3 on the upsampled features 18.6 -> 6.9 ms, the half-size ConvGRU's gates 9.8 -> 2.9 ms).
 * Measured at an encoder of 480 px on an older EPYC, a bound of 32 had found them no faster.
 */
const MIN_INT8_OUTPUT_CHANNELS = 16;

/**
 * The output block's convolutions pass the multiply-add bound whatever their size: its 3x3 on 16
 * channels at the full input size reads the phase convolution's bytes put in place (rvmForInt8),
 * so it has no way into int8 to pay for, and onnxruntime drops the dequantise-quantise pair between
 * the two (the same range). At `human`'s 640x360 on one thread (AMD EPYC Zen 5, 4 December 2026) it
 * took 3.5 ms instead of 6.7, the recurrent stage's run 41.8 -> 39.3 ms (medians of 37 interleaved
 * runs); bench:matting's quality the same to 2e-4 IoU on every clip (`human` portrait-pan 0.9764,
 * DAVIS rollerblade / swing / breakdance-flare 0.8784 / 0.8248 / 0.9112; `light` portrait-pan 0.9578,
 * turning 0.9416 against 0.9417).
 */
const OUTPUT_BLOCK = /\/output_block\//;

/**
 * Which of RVM's convolutions run in int8 (onnxruntime's QLinearConv, VNNI): every convolution
 * that is not depthwise, reads an activation, and passes both bounds above (the output block's
 * whatever its multiply-adds), the ConvGRUs' included;
 * the squeeze-excitation's (on 1x1 pooled values) stay fp32. The first one, on the 3-channel image,
 * fails the multiply-add bound: in int8 it had lost 0.008 IoU on portrait-pan.
 *
 * The ConvGRUs' convolutions were left fp32 at first, for fear that their error would build up in
 * the recurrent state. Measured, it does not: over 800 frames (portrait-pan forward and back three
 * times, then walkers forward and back) the mean |alpha - fp32 alpha| per 100 frames stayed at
 * 1.3e-4 to 2.8e-4 (1.2e-4 to 2.0e-4 with them in fp32), with no growth. With them and the 16-channel
 * convolutions in int8 (ranges recalibrated), one run at `human`'s 640x360 took 118-120 ms of CPU on
 * one thread against 139-143 ms (interleaved), and `human` kept its IoU: portrait-pan 0.9771 (0.9767
 * before), DAVIS rollerblade / swing / breakdance-flare 0.876 / 0.822 / 0.912 (0.877 / 0.821 /
 * 0.912), the project's composites within 0.001 but out-of-frame 0.948 (0.954; it has moved with every
 * int8 change, fp32 0.935). `light`: 12% less CPU a frame, portrait-pan 0.951 -> 0.953.
 */
export function rvmInt8Convs(model: onnx.IModelProto): QuantizedConv[] {
  return quantizableConvs(model, (node, [outChannels, inChannels, kernelHeight, kernelWidth]) => {
    if (/squeeze_excitation/.test(node.name ?? '')) return false;
    const enoughWork = inChannels * kernelHeight * kernelWidth >= MIN_INT8_MACS_PER_OUTPUT || OUTPUT_BLOCK.test(node.name ?? '');
    return outChannels >= MIN_INT8_OUTPUT_CHANNELS && enoughWork;
  });
}

/**
 * The output block's image (0..1) is read beside its upsampled features by one int8 convolution
 * (onnx/phase-conv-merge.ts), at one uint8 range: times 4 it lies inside the features' calibrated
 * range (-1..5.6) and keeps about 150 of the 256 levels.
 */
const IMAGE_SCALE = 4;

/**
 * RVM's fp32 graph as it is calibrated and quantised: the output block's 2x upsampling folded into
 * the convolution that reads it (onnx/upsample-conv-fold.ts), which then runs at half size on the
 * four output phases at once. Its int8 convolution there took 2.5 ms instead of 6.0 at `human`'s
 * 640x360, and the upsampling, its reordering and its quantisation at full size (5.4 ms) are gone;
 * the phases are put in place on bytes (3.0 ms on the Zen 5 as a DepthToSpace; since, channels-last:
 * qdq-quantizer.ts channelsLastDepthToSpace). Only the output block: it comes after
 * every recurrent state, so the outermost ring of pixels that the fold changes (the edge repeated
 * where the upsampled tensor was padded with zeros) stays in that frame's matte. The block's
 * convolution of the image is then merged into that phase convolution (onnx/phase-conv-merge.ts):
 * at `human`'s 640x360 on one thread (AMD EPYC Zen 5) the recurrent stage's run 47.5-50.9 -> 42.0-48.1
 * ms (interleaved), its stateless stage about 1 ms longer, the alpha as close to fp32 as before.
 */
export function rvmForInt8(floatModel: Uint8Array): Uint8Array {
  const model = onnx.ModelProto.decode(floatModel);
  foldUpsampledConvs(model, (conv) => conv.name!.includes('/output_block/'));
  mergeSideConvsIntoPhases(model, IMAGE_SCALE);
  return onnx.ModelProto.encode(model).finish();
}

/**
 * RVM's fp32 ONNX graph (rvmForInt8) with those convolutions quantised, activations at the
 * calibrated ranges. A convolution without calibrated ranges (a graph the calibration did not see)
 * stays fp32.
 */
export function quantizeRvm(floatModel: Uint8Array): Uint8Array {
  const folded = rvmForInt8(floatModel);
  return quantizeCalibrated(folded, rvmInt8Convs(onnx.ModelProto.decode(folded)), RVM_INT8_RANGES);
}

/**
 * The precision every model runs RVM at on this CPU: int8 wherever onnxruntime has int8 arithmetic
 * (runtime/cpu-features.ts), with 8-bit dot products or without, fp32 elsewhere. With VNNI (AMD EPYC)
 * int8 kept `light` at 0.952 on portrait-pan (fp32 0.953) for about 20% less CPU. Without it (AVX2
 * only, AMD EPYC Zen 3, 30 November 2026; bench:matting, IoU at 0.5, fp32 -> int8): `human`
 * portrait-pan 0.9769 -> 0.9769, the seven composites within 0.005 (out-of-frame 0.930 -> 0.934,
 * passers-by 0.969 -> 0.971), DAVIS rollerblade / swing / breakdance-flare 0.876 / 0.826 / 0.914 ->
 * 0.877 / 0.825 / 0.912, kite-walk 0.600 -> 0.597; end to end to WebM 6.3-6.4 -> 7.3-7.4 fps at
 * 640x360 (302 -> 258-263 ms of CPU a frame) and 5.6 -> 7.0 at 1280x720 in an interleaved pair;
 * `light` within 0.005 on every clip (portrait-pan 0.9577 -> 0.9575, turning 0.939 -> 0.944), 17.5 /
 * 18.1 -> 21.4 / 22.5 fps at 640x360. (Measured with the quantiser of 28 November, int8 there had
 * taken `light` to 0.934 and saved 4%: fewer convolutions were in int8, and the output block was not
 * folded.)
 */
export function rvmPrecision(arithmetic: Int8Arithmetic): 'int8' | 'float32' {
  return arithmetic === 'none' ? 'float32' : 'int8';
}
