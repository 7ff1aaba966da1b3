/**
 * @jest-environment ./test/engine/models/support/onnx-environment.js
 */
import { execFileSync } from 'child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join, resolve } from 'path';
import { gunzipSync, gzipSync } from 'zlib';
import * as ort from 'onnxruntime-node';
import { onnx } from 'onnx-proto';
import { readTfliteModel } from '../../../src/engine/models/tflite/tflite-model';
import { convertTfliteToOnnx } from '../../../src/engine/models/tflite/tflite-to-onnx';
import { halfToFloat, transpose4d } from '../../../src/engine/models/tflite/tensor-data';
import { selfieTflitePath } from '../../../src/engine/models/selfie/selfie-model-file';
import { SelfieSegmenter } from '../../../src/engine/models/selfie/selfie-segmenter';
import { binaryIou } from '../../../src/engine/quality/metrics';
import { resizePlane, toAlphaBytes } from '../../../src/engine/models/image/resample';
import { decodeRgbFrames, ffmpegPath, MEDIA_DIR } from './support/clips';

const GOLDEN = resolve(__dirname, '../../fixtures/models/portrait-selfie-square-256.gray.gz');

describe('fp16 and layout helpers', () => {
  it('decodes binary16 values', () => {
    expect(halfToFloat(0x3c00)).toBe(1);
    expect(halfToFloat(0xc000)).toBe(-2);
    expect(halfToFloat(0x3555)).toBeCloseTo(0.33325, 5);
    expect(halfToFloat(0x0001)).toBeCloseTo(5.96e-8, 9); // smallest subnormal
    expect(halfToFloat(0x7c00)).toBe(Infinity);
  });

  it('transposes 4-D arrays (OHWI -> OIHW)', () => {
    const ohwi = Float32Array.from({ length: 2 * 1 * 2 * 3 }, (_, i) => i);
    const oihw = transpose4d(ohwi, [2, 1, 2, 3], [0, 3, 1, 2]);
    // element [o=1, i=2, h=0, w=1] comes from [o=1, h=0, w=1, i=2]
    expect(oihw[1 * 6 + 2 * 2 + 0 * 2 + 1]).toBe(ohwi[1 * 6 + 0 * 6 + 1 * 3 + 2]);
  });
});

describe('TFLite reader', () => {
  it('reads the selfie model graph', () => {
    const graph = readTfliteModel(readFileSync(selfieTflitePath('square')));
    const counts: Record<string, number> = {};
    for (const op of graph.operators) counts[op.opName] = (counts[op.opName] ?? 0) + 1;
    expect(counts).toMatchObject({ CONV_2D: 43, DEPTHWISE_CONV_2D: 11, HARD_SWISH: 11, DEQUANTIZE: 110, Convolution2DTransposeBias: 1, RESIZE_BILINEAR: 3 });
    expect(graph.tensors[graph.inputs[0]].shape).toEqual([1, 256, 256, 3]);
    expect(graph.tensors[graph.outputs[0]].shape).toEqual([1, 256, 256, 1]);
  });

  it('rejects a file that is not a TFLite model', () => {
    expect(() => readTfliteModel(new Uint8Array(64))).toThrow(/not a TFLite model/);
  });
});

describe('TFLite -> ONNX converter (selfie segmentation)', () => {
  const cacheDir = mkdtempSync(join(tmpdir(), 'backdrop-selfie-'));

  it('produces a graph with the expected structure', () => {
    const bytes = convertTfliteToOnnx(readTfliteModel(readFileSync(selfieTflitePath('square'))), { rgbBytesInput: true });
    const model = onnx.ModelProto.decode(bytes);
    const counts: Record<string, number> = {};
    for (const node of model.graph!.node!) counts[node.opType!] = (counts[node.opType!] ?? 0) + 1;
    expect(counts).toMatchObject({ Conv: 54, ConvTranspose: 1, HardSwish: 11, Sigmoid: 11, Resize: 3, GlobalAveragePool: 10 });
    // the squeeze-and-excitation pools cover their whole input at every size, not the native size's window
    expect(counts.AveragePool).toBeUndefined();
    expect(counts.DequantizeLinear).toBeUndefined(); // fp16 weights are folded into float32 initializers
    const input = model.graph!.input![0].type!.tensorType!;
    expect(input.elemType).toBe(onnx.TensorProto.DataType.UINT8);
    expect(input.shape!.dim!.map((d) => Number(d.dimValue))).toEqual([1, 256, 256, 3]);
  });

  it('segments portrait.jpg like the committed golden mask and like an independent U2-Net cutout', async () => {
    const segmenter = await SelfieSegmenter.open('square', cacheDir);
    const rgb = decodeRgbFrames(join(MEDIA_DIR, 'portrait.jpg'), 256, 256)[0];
    const mask = toAlphaBytes(await segmenter.probabilities(rgb));
    await segmenter.close();

    if (process.env.UPDATE_GOLDEN === '1') {
      mkdirSync(resolve(GOLDEN, '..'), { recursive: true });
      writeFileSync(GOLDEN, gzipSync(mask));
    }
    const golden = new Uint8Array(gunzipSync(readFileSync(GOLDEN)));
    expect(golden.length).toBe(mask.length);
    let maxDiff = 0;
    let sumDiff = 0;
    for (let i = 0; i < mask.length; i++) {
      const d = Math.abs(mask[i] - golden[i]);
      maxDiff = Math.max(maxDiff, d);
      sumDiff += d;
    }
    // onnxruntime versions and CPUs differ in float rounding, nothing more
    expect(maxDiff).toBeLessThanOrEqual(4);
    expect(sumDiff / mask.length).toBeLessThan(0.25);

    // independent reference: the U2-Net cutout shipped with the media (not exact truth)
    const rgba = execFileSync(ffmpegPath(), ['-v', 'error', '-i', join(MEDIA_DIR, 'portrait.reference.png'), '-f', 'rawvideo', '-pix_fmt', 'rgba', '-'], { maxBuffer: 1 << 26 });
    const reference = new Uint8Array(718 * 478);
    for (let i = 0; i < reference.length; i++) reference[i] = rgba[4 * i + 3];
    const upscaled = toAlphaBytes(resizePlane({ width: 256, height: 256, data: Float32Array.from(mask, (v) => v / 255) }, 718, 478));
    const iou = binaryIou(upscaled, reference);
    console.log(`selfie (converted) on portrait.jpg: IoU vs U2-Net reference ${iou.toFixed(4)}`);
    expect(iou).toBeGreaterThan(0.93);
  });

  it('keeps its output when the input size changes (Resize follows the input)', async () => {
    const path = join(cacheDir, 'wide.onnx');
    writeFileSync(path, convertTfliteToOnnx(readTfliteModel(readFileSync(selfieTflitePath('square'))), { rgbBytesInput: true, inputHeight: 256, inputWidth: 448 }));
    const session = await ort.InferenceSession.create(path);
    const rgb = decodeRgbFrames(join(MEDIA_DIR, 'portrait.jpg'), 448, 256)[0];
    const out = await session.run({ [session.inputNames[0]]: new ort.Tensor('uint8', rgb, [1, 256, 448, 3]) });
    expect(out[session.outputNames[0]].dims).toEqual([1, 256, 448, 1]);
    await session.release();
  });

  it('pools over the whole frame at twice its native width: a picture beside itself is matted as the picture alone', async () => {
    const square = await SelfieSegmenter.open('square', cacheDir);
    const wide = await SelfieSegmenter.open('square', cacheDir, { width: 512, height: 256 });
    const picture = decodeRgbFrames(join(MEDIA_DIR, 'portrait.jpg'), 256, 256)[0];
    const twice = new Uint8Array(256 * 512 * 3);
    for (let y = 0; y < 256; y++) {
      const row = picture.subarray(y * 256 * 3, (y + 1) * 256 * 3);
      twice.set(row, y * 512 * 3);
      twice.set(row, y * 512 * 3 + 256 * 3);
    }
    const alone = toAlphaBytes(await square.probabilities(picture));
    const beside = toAlphaBytes(await wide.probabilities(twice));
    await Promise.all([square.close(), wide.close()]);
    // the right copy, away from the frame's left edge the square picture has, against the picture alone
    const rightCopy = new Uint8Array(256 * 256);
    for (let y = 0; y < 256; y++) rightCopy.set(beside.subarray(y * 512 + 256, (y + 1) * 512), y * 256);
    expect(binaryIou(rightCopy, alone)).toBeGreaterThan(0.97);
  });
});
