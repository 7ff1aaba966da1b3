/**
 * Calibration of ISNet's int8 activations (`node dist/bench/quality/calibrate-isnet.js`): runs the
 * fp32 model at its 1024x1024 input on stills and frames that no benchmark scores (walkers.mp4,
 * portrait.jpg, astronaut.png; each stretched to the square as the engine does) and writes, for the
 * input and output of every int8 convolution, a high percentile of its values (the lower bound is the
 * matching low percentile, 0 after a Relu) to src/engine/models/isnet/isnet-int8-ranges.ts. The
 * per-frame percentiles are combined by taking the widest over the frames.
 * ISNET_PERCENTILE (default 99.99) picks the percentile; 100 is the plain min/max.
 */
import '../onnx-telemetry-off';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { onnx } from 'onnx-proto';
import { ffmpegPath } from '../../src/engine/media/binaries';
import { withIntermediateOutputs } from '../../src/engine/models/onnx/qdq-quantizer';
import { isnetInt8Convs } from '../../src/engine/models/isnet/isnet-int8';
import { rangeKey } from '../../src/engine/models/onnx/qdq-quantizer';
import { prepareIsnetModel } from '../../src/engine/models/isnet/isnet-model-file';
import { MEDIA_DIR } from '../engine/options';

const cacheDir = process.env.BENCH_CACHE_DIR ?? join(process.cwd(), '.cache', 'models');
const percentile = Number(process.env.ISNET_PERCENTILE ?? '99.99');
const SIZE = 1024;
const BINS = 8192;

function decode(file: string, frames: number, every = 1): Uint8Array[] {
  const select = every > 1 ? `select='not(mod(n\\,${every}))',` : '';
  const args = ['-v', 'error', '-i', file, '-vf', `${select}scale=${SIZE}:${SIZE}`, '-vsync', '0', '-frames:v', String(frames), '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'];
  const bytes = execFileSync(ffmpegPath(), args, { maxBuffer: 2 ** 31 - 1 });
  const size = SIZE * SIZE * 3;
  return Array.from({ length: Math.floor(bytes.length / size) }, (_, i) => new Uint8Array(bytes.subarray(i * size, (i + 1) * size)));
}

/** the values at `p` and `100 - p` percent of `data` (a histogram between its min and max) */
export function percentileRanges(data: Float32Array, percentiles: number[]): [number, number][] {
  let [min, max] = [Infinity, -Infinity];
  for (const v of data) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  if (max <= min) return percentiles.map(() => [min, max]);
  const histogram = new Float64Array(BINS);
  const step = (max - min) / BINS;
  for (const v of data) histogram[Math.min(BINS - 1, Math.floor((v - min) / step))]++;
  return percentiles.map((p) => {
    if (p >= 100) return [min, max];
    const tail = (data.length * (100 - p)) / 100;
    let [low, high, seen] = [0, BINS - 1, 0];
    for (seen = 0; low < BINS - 1 && seen + histogram[low] <= tail; low++) seen += histogram[low];
    for (seen = 0; high > 0 && seen + histogram[high] <= tail; high--) seen += histogram[high];
    return [min === 0 ? 0 : min + low * step, min + (high + 1) * step];
  });
}

const PERCENTILES = [100, 99.999, 99.99, 99.9];

async function main(): Promise<void> {
  const floatModel = new Uint8Array(readFileSync(prepareIsnetModel(cacheDir, { width: SIZE, height: SIZE })));
  const convs = isnetInt8Convs(onnx.ModelProto.decode(floatModel));
  const names = [...new Set(convs.flatMap((c) => [c.input, c.output]))];
  const session = await ort.InferenceSession.create(withIntermediateOutputs(floatModel, names), { graphOptimizationLevel: 'basic', intraOpNumThreads: 2 });
  const frames = [...decode(join(MEDIA_DIR, 'walkers.mp4'), 6, 16), ...decode(join(MEDIA_DIR, 'portrait.jpg'), 1), ...decode(join(MEDIA_DIR, 'astronaut.png'), 1)];
  const all = new Map<number, Map<string, [number, number]>>(PERCENTILES.map((p) => [p, new Map()]));
  for (const rgb of frames) {
    const result = await session.run({ rgb: new ort.Tensor('uint8', rgb, [1, SIZE, SIZE, 3]) });
    for (const conv of convs) {
      for (const side of ['input', 'output'] as const) {
        const found = percentileRanges(result[conv[side]].data as Float32Array, PERCENTILES);
        for (const [i, p] of PERCENTILES.entries()) {
          const [min, max] = found[i];
          const ranges = all.get(p)!;
          const key = rangeKey(conv, side);
          const seen = ranges.get(key);
          ranges.set(key, seen ? [Math.min(seen[0], min), Math.max(seen[1], max)] : [min, max]);
        }
      }
    }
    process.stdout.write('.');
  }
  if (process.env.ISNET_RANGES_DIR) {
    for (const [p, ranges] of all) writeFileSync(join(process.env.ISNET_RANGES_DIR, `isnet-ranges-${p}.json`), JSON.stringify(Object.fromEntries(ranges)));
  }
  if (!all.has(percentile)) throw new Error(`ISNET_PERCENTILE must be one of ${PERCENTILES.join(', ')}`);
  const ranges = all.get(percentile)!;
  console.log(`\n${convs.length} convolutions, ${frames.length} frames, percentile ${percentile}`);
  const lines = [...ranges.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, [min, max]]) => `  '${name}': [${min.toPrecision(6)}, ${max.toPrecision(6)}],`);
  const source = [
    `/** Generated by bench/quality/calibrate-isnet.ts (walkers.mp4, portrait.jpg, astronaut.png: never scored): the ${percentile}th-percentile range of the input and output of each int8 convolution. */`,
    'export const ISNET_INT8_RANGES: Record<string, [number, number]> = {',
    ...lines,
    '};',
    '',
  ].join('\n');
  const target = process.env.ISNET_RANGES_OUT ?? join(process.cwd(), 'src', 'engine', 'models', 'isnet', 'isnet-int8-ranges.ts');
  writeFileSync(target, source);
  console.log(`wrote ${ranges.size} ranges to ${target}`);
}

if (require.main === module) void main();
