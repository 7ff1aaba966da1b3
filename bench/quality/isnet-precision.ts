/**
 * ISNet fp32 against its int8 graph (`node dist/bench/quality/isnet-precision.js`): the two sessions
 * opened as the engine opens them, run in turn on the same frames (so load hits both alike), with
 * per run the process CPU time (all of onnxruntime's threads) and the wall time, and the agreement of
 * the outputs: mean |difference|, the share of pixels on the other side of 0.5, and the IoU of the
 * two masks at 0.5. Frames: ISNET_CLIPS (default car-slide,portrait-pan from ../shared/media, davis/NAME
 * for a DAVIS sequence), ISNET_FRAMES per clip (default 2), spread over the clip.
 * ISNET_RANGES_JSON quantises with another range table (calibrate-isnet.ts writes them).
 */
import '../onnx-telemetry-off';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpus, loadavg } from 'node:os';
import * as ort from 'onnxruntime-node';
import { ffmpegPath } from '../../src/engine/media/binaries';
import { quantizeIsnet } from '../../src/engine/models/isnet/isnet-int8';
import { prepareIsnetModel } from '../../src/engine/models/isnet/isnet-model-file';
import { openOnnxSession, runSingle } from '../../src/engine/models/runtime/onnx-session';
import { MEDIA_DIR } from '../engine/options';
import { median } from '../engine/stats';

const cacheDir = process.env.BENCH_CACHE_DIR ?? join(process.cwd(), '.cache', 'models');
const clips = (process.env.ISNET_CLIPS ?? 'car-slide,portrait-pan').split(',');
const perClip = Number(process.env.ISNET_FRAMES ?? '2');
const SIZE = 1024;

function decode(file: string, frames: number): Uint8Array[] {
  const args = ['-v', 'error', '-i', file, '-vf', `select='not(mod(n\\,23))',scale=${SIZE}:${SIZE}`, '-vsync', '0', '-frames:v', String(frames), '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'];
  const bytes = execFileSync(ffmpegPath(), args, { maxBuffer: 2 ** 31 - 1 });
  const size = SIZE * SIZE * 3;
  return Array.from({ length: Math.floor(bytes.length / size) }, (_, i) => new Uint8Array(bytes.subarray(i * size, (i + 1) * size)));
}

interface Timing {
  cpuMs: number[];
  wallMs: number[];
}

async function timed(session: ort.InferenceSession, rgb: Uint8Array, timing: Timing): Promise<Float32Array> {
  const [cpu, wall] = [process.cpuUsage(), performance.now()];
  const out = await runSingle(session, new ort.Tensor('uint8', rgb, [1, SIZE, SIZE, 3]));
  const used = process.cpuUsage(cpu);
  timing.wallMs.push(performance.now() - wall);
  timing.cpuMs.push((used.user + used.system) / 1000);
  return out;
}


async function main(): Promise<void> {
  const floatPath = prepareIsnetModel(cacheDir, { width: SIZE, height: SIZE });
  const int8Bytes = process.env.ISNET_RANGES_JSON
    ? quantizeIsnet(new Uint8Array(readFileSync(floatPath)), JSON.parse(readFileSync(process.env.ISNET_RANGES_JSON, 'utf8')) as Record<string, [number, number]>)
    : readFileSync(prepareIsnetModel(cacheDir, { width: SIZE, height: SIZE, precision: 'int8' }));
  const [fp32, int8] = [await openOnnxSession(floatPath), await openOnnxSession(new Uint8Array(int8Bytes))];
  const frames = clips.flatMap((clip) => decode(join(MEDIA_DIR, `${clip}.mp4`), perClip).map((rgb) => ({ clip, rgb })));
  const timings = { fp32: { cpuMs: [], wallMs: [] } as Timing, int8: { cpuMs: [], wallMs: [] } as Timing };
  const loads: number[] = [];
  await timed(fp32, frames[0].rgb, { cpuMs: [], wallMs: [] }); // warm-up
  await timed(int8, frames[0].rgb, { cpuMs: [], wallMs: [] });
  console.log(`${cpus().length} x ${cpus()[0]?.model}; clip frame: mean |diff|, % across 0.5, IoU of the masks at 0.5 (int8 vs fp32)`);
  for (const { clip, rgb } of frames) {
    loads.push(loadavg()[0]);
    const a = await timed(fp32, rgb, timings.fp32);
    const b = await timed(int8, rgb, timings.int8);
    let [difference, flipped, both, either] = [0, 0, 0, 0];
    for (let i = 0; i < a.length; i++) {
      difference += Math.abs(a[i] - b[i]);
      const [x, y] = [a[i] >= 0.5, b[i] >= 0.5];
      if (x !== y) flipped++;
      if (x && y) both++;
      if (x || y) either++;
    }
    console.log(`${clip}: ${(difference / a.length).toExponential(2)}  ${((100 * flipped) / a.length).toFixed(3)}%  IoU ${(either ? both / either : 1).toFixed(4)}`);
  }
  for (const [name, t] of Object.entries(timings)) {
    console.log(`${name}: median ${median(t.cpuMs).toFixed(0)} ms CPU, ${median(t.wallMs).toFixed(0)} ms wall per run over ${t.cpuMs.length} runs (CPU ${t.cpuMs.map((v) => v.toFixed(0)).join(' ')})`);
  }
  console.log(`load average (1 min) during the runs: ${loads.map((l) => l.toFixed(2)).join(' ')}`);
  await Promise.all([fp32.release(), int8.release()]);
}

if (require.main === module) void main();
