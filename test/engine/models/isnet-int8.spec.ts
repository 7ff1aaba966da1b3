/**
 * @jest-environment ./test/engine/models/support/onnx-environment.js
 */
import { execFileSync } from 'child_process';
import { readFileSync } from 'fs';
import { join, resolve } from 'path';
import * as ort from 'onnxruntime-node';
import { onnx } from 'onnx-proto';
import { prepareIsnetModel } from '../../../src/engine/models/isnet/isnet-model-file';
import { IsnetSegmenter } from '../../../src/engine/models/isnet/isnet-segmenter';
import { openOnnxSession, runSingle } from '../../../src/engine/models/runtime/onnx-session';
import { ffmpegPath, MEDIA_DIR } from './support/clips';

const CACHE_DIR = resolve(process.cwd(), '.cache/models');
const SIZE = 1024;

/**
 * One frame through both graphs: bench/quality/isnet-precision.ts measured a
 * mean |diff| of 2-6e-4 and 0.01-0.06% of pixels across 0.5 on car-slide and portrait-pan frames.
 */
describe('ISNet with its convolutions in int8', () => {
  it('builds, and keeps the probabilities of fp32 on a real frame: mean |diff| < 2e-3, under 0.3% of pixels across 0.5', async () => {
    // built on first use (and cached, so the quality specs that run `original` reuse it)
    const floatPath = prepareIsnetModel(CACHE_DIR, { width: SIZE, height: SIZE });
    const int8Path = prepareIsnetModel(CACHE_DIR, { width: SIZE, height: SIZE, precision: 'int8' });
    const graph = onnx.ModelProto.decode(readFileSync(int8Path)).graph!;
    const convs = graph.node!.filter((n) => n.opType === 'Conv');
    // all but the first (on the image's 3 channels) in int8: 99 of 100 with the first decoder stage pruned
    expect(convs.filter((n) => !n.input![1].endsWith('_dequantized')).map((n) => n.name)).toEqual(['/conv_in/Conv']);
    expect(convs.length).toBeGreaterThanOrEqual(100);
    const args = ['-v', 'error', '-i', join(MEDIA_DIR, 'car-slide.mp4'), '-vf', `select='eq(n\\,50)',scale=${SIZE}:${SIZE}`, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'];
    const rgb = new Uint8Array(execFileSync(ffmpegPath(), args, { maxBuffer: 1 << 25 }));
    expect(rgb.length).toBe(SIZE * SIZE * 3);
    const [fp32, int8] = [await openOnnxSession(floatPath), await openOnnxSession(int8Path)];
    const input = new ort.Tensor('uint8', rgb, [1, SIZE, SIZE, 3]);
    const [a, b] = [await runSingle(fp32, input), await runSingle(int8, input)];
    await Promise.all([fp32.release(), int8.release()]);
    let [difference, flipped] = [0, 0];
    for (let i = 0; i < a.length; i++) {
      difference += Math.abs(a[i] - b[i]);
      if (a[i] >= 0.5 !== b[i] >= 0.5) flipped++;
    }
    console.log(`ISNet int8 vs fp32 on car-slide frame 50: mean |diff| ${(difference / a.length).toExponential(2)}, ${((100 * flipped) / a.length).toFixed(3)}% across 0.5`);
    expect(difference / a.length).toBeLessThan(2e-3);
    expect(flipped / a.length).toBeLessThan(0.003);
  }, 120_000);

  it('takes a frame of any size and scales it in its graph as ffmpeg does: the 640x360 frame gives the plane of ffmpeg\'s 1024x1024 scaling', async () => {
    const frameAt = (scale: string) => new Uint8Array(execFileSync(ffmpegPath(), ['-v', 'error', '-i', join(MEDIA_DIR, 'car-slide.mp4'), '-vf', `select='eq(n\\,50)'${scale}`, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { maxBuffer: 1 << 25 }));
    const [square, native] = [frameAt(`,scale=${SIZE}:${SIZE}:flags=bilinear`), frameAt('')];
    expect(native.length).toBe(640 * 360 * 3);
    const segmenter = await IsnetSegmenter.open(CACHE_DIR, { width: SIZE, height: SIZE });
    try {
      const [a, b] = [await segmenter.probabilities(square), await segmenter.probabilities(native, 640, 360)];
      expect(b.length).toBe(SIZE * SIZE);
      let [difference, flipped] = [0, 0];
      for (let i = 0; i < a.length; i++) {
        difference += Math.abs(a[i] - b[i]);
        if (a[i] >= 0.5 !== b[i] >= 0.5) flipped++;
      }
      console.log(`ISNet on car-slide frame 50 at 640x360 vs ffmpeg's 1024x1024: mean |diff| ${(difference / a.length).toExponential(2)}, ${((100 * flipped) / a.length).toFixed(3)}% across 0.5`);
      expect(difference / a.length).toBeLessThan(5e-3);
      expect(flipped / a.length).toBeLessThan(0.005);
      await expect(segmenter.probabilities(native, 640, 361)).rejects.toThrow(RangeError);
    } finally {
      await segmenter.close();
    }
  }, 120_000);
});
