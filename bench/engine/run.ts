/**
 * Engine benchmark (`npm run bench:engine`). For each model x format x clip: engine frames per
 * second, peak memory, and the engine's wall time over the floors measured in the same run (see
 * floor.ts); then matte quality per model on the clips with ground truth; then the peer library.
 *
 * Selection: BENCH_MODELS, BENCH_FORMATS, BENCH_CLIPS (comma lists), BENCH_PREVIEW (seconds of
 * each clip), BENCH_REPEAT (timing runs per case, fastest kept; default 2), BENCH_SECTIONS
 * (speed,quality,peer; also `memory`: a long 1080p clip, opt-in), BENCH_PEER_FRAMES (default 5),
 * BENCH_CACHE_DIR (model cache).
 */
import '../onnx-telemetry-off';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { ffmpegPath } from '../../src/engine/media/binaries';
import { probe } from '../../src/engine/media/input-gate';
import { ProbedVideo } from '../../src/engine/media/probe';
import { sourceSpecOf } from '../../src/engine/pipeline/plan';
import { ENCODER_PRESETS } from '../../src/engine/pipeline/encoders';
import { SourceSpec } from '../../src/engine/pipeline/ffmpeg-args';
import { ModelName } from '../../src/engine/types';
import { runCase } from './case-protocol';
import { measureEncoderAlone, measurePlainFloor } from './floor';
import { measureMemory } from './memory';
import { cpuLine } from './machine';
import { withCpuTime } from './process-tree';
import { loadModelsModule, modelsAvailable, MODELS_MODULE } from './models';
import { BenchOptions, ClipName, clipPath, parseBenchOptions, truthPath } from './options';
import type { PeerCaseInput, PeerCaseOutput } from './peer-case';
import { proCostSection } from './pro-cost';
import { measureQuality, modelColumn } from './quality';
import type { SpeedCaseInput, SpeedCaseOutput } from './speed-case';
import { Cell, megabytes, renderTable } from './table';

function machineReport(): string {
  const ffmpegVersion = execFileSync(ffmpegPath(), ['-version'], { encoding: 'utf8' }).split('\n')[0];
  return [
    `CPU: ${cpuLine()}; memory ${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
    `node ${process.version}; ${ffmpegVersion}`,
  ].join('\n');
}

function sourceOf(clip: ClipName, video: ProbedVideo, previewSeconds: number | undefined): SourceSpec {
  const trimmed = previewSeconds !== undefined && previewSeconds < video.durationSeconds;
  return sourceSpecOf(clipPath(clip), video, trimmed ? previewSeconds : undefined);
}

async function fastest<T extends { wallMs: number }>(repeat: number, run: () => Promise<T>): Promise<T & { peakRuns: T[] }> {
  const runs: T[] = [];
  for (let i = 0; i < repeat; i++) runs.push(await run());
  const best = runs.reduce((a, b) => (b.wallMs < a.wallMs ? b : a));
  return { ...best, peakRuns: runs };
}

interface FloorTiming {
  wallMs: number;
  /** CPU time of the fastest run (undefined without /proc) */
  cpuMs?: number;
}

/** the fastest of `repeat` runs of `measure` (which returns its wall time), with its CPU time */
async function fastestFloor(repeat: number, measure: () => Promise<number>): Promise<FloorTiming> {
  let best: FloorTiming = { wallMs: Infinity };
  for (let i = 0; i < repeat; i++) {
    const { result: wallMs, cpuMs } = await withCpuTime(measure);
    if (wallMs < best.wallMs) best = { wallMs, cpuMs };
  }
  return best;
}

async function minimum(repeat: number, measure: () => Promise<number>): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < repeat; i++) best = Math.min(best, await measure());
  return best;
}

async function speedSection(options: BenchOptions, dir: string): Promise<void> {
  const cores = cpus().length;
  const rows: Cell[][] = [];
  const floorRows: Cell[][] = [];
  const canRunModels = modelsAvailable();
  if (!canRunModels) console.log(`\n(no ${MODELS_MODULE}/index: engine rows skipped, floors only)`);
  for (const clip of options.speedClips) {
    const video = await probe(clipPath(clip));
    const source = sourceOf(clip, video, options.previewSeconds);
    const keepAudio = video.hasAudio;
    for (const format of options.formats) {
      const plain = await fastestFloor(options.repeat, () => measurePlainFloor(source, format, keepAudio && !!ENCODER_PRESETS[format].audioArgs, dir));
      const plainMs = plain.wallMs;
      const expectedFrames = Math.round((source.durationLimit ?? video.durationSeconds) * video.fps);
      floorRows.push([clip, `${video.width}x${video.height}`, format, expectedFrames, expectedFrames / (plainMs / 1000), plainMs / 1000, seconds(plain.cpuMs), ratio(plain.cpuMs, plainMs)]);
      if (!canRunModels) continue;
      for (const model of options.models) {
        try {
          const input: SpeedCaseInput = { model, format, inputPath: clipPath(clip), outDir: dir, cacheDir: options.cacheDir, previewSeconds: options.previewSeconds };
          const engine = await fastest(options.repeat, () => runCase<SpeedCaseOutput>('speed-case', input));
          const aloneMs = await minimum(options.repeat, () =>
            measureEncoderAlone(source, format, keepAudio, { path: engine.mattes.path, width: engine.mattes.width, height: engine.mattes.height }, dir),
          );
          const wallSeconds = engine.wallMs / 1000;
          rows.push([
            clip, format, modelLabel(model, engine.modelUsed), engine.frames, engine.frames / wallSeconds, wallSeconds,
            engine.wallMs / plainMs, engine.wallMs / aloneMs, seconds(engine.cpuMs), ratio(engine.cpuMs, plain.cpuMs),
            ratio(engine.cpuMs, cores * plainMs), engine.mattes.segmentMs / engine.mattes.frames,
            megabytes(Math.max(...engine.peakRuns.map((run) => run.peakNodeRss))), megabytes(Math.max(...engine.peakRuns.map((run) => run.peakTreeRss))),
            engine.modelLoadMs / 1000,
          ]);
        } catch (error) {
          rows.push([clip, format, model, `failed: ${(error as Error).message.slice(0, 160)}`]);
        }
      }
    }
  }
  console.log('\n## Floors: plain ffmpeg decode + encode, same format and encoder settings (fastest of', options.repeat, 'runs)\n');
  console.log(renderTable(['clip', 'size', 'format', 'frames', 'floor fps', 'floor s', 'CPU s', 'cores busy'], floorRows, [0, 0, 0, 0, 1, 2, 2, 2]));
  if (!rows.length) return;
  console.log('\n## Engine (transparent background; fastest of', options.repeat, 'runs; model load excluded, probe and session included)\n');
  console.log(
    'x plain = engine wall / plain floor; x encoder = engine wall / the engine\'s own encoder fed the same mattes from a file\n' +
      '(same pixels and alpha: what remains is decode-for-the-model, inference and the pipes). RSS: node alone / node + ffmpeg children.\n' +
      `CPU s: user + system time of the engine's process and its ffmpeg children; x CPU = that / the plain floor's CPU time;\n` +
      `min x plain = CPU s / ${cores} cores / plain floor wall: the lowest x plain this machine allows for that CPU time, were every core busy throughout.\n`,
  );
  console.log(
    renderTable(
      ['clip', 'format', 'model', 'frames', 'fps', 'wall s', 'x plain', 'x encoder', 'CPU s', 'x CPU', 'min x plain', 'segment ms/f', 'RSS node MB', 'RSS tree MB', 'load s'],
      rows,
      [0, 0, 0, 0, 1, 2, 2, 2, 2, 2, 2, 1, 0, 0, 1],
    ),
  );
}

function seconds(ms: number | undefined): number | undefined {
  return ms === undefined ? undefined : ms / 1000;
}

function ratio(numerator: number | undefined, denominator: number | undefined): number | undefined {
  return numerator === undefined || denominator === undefined || denominator <= 0 ? undefined : numerator / denominator;
}

function modelLabel(requested: ModelName, used: ModelName): string {
  return requested === used ? requested : `${requested} (ran ${used})`;
}

async function qualitySection(options: BenchOptions): Promise<void> {
  if (!modelsAvailable()) {
    console.log(`\n## Quality: skipped, ${MODELS_MODULE}/index does not exist yet`);
    return;
  }
  const loadModel = await loadModelsModule();
  const rows: Cell[][] = [];
  for (const model of options.models) {
    for (const clip of options.qualityClips) {
      try {
        const loaded = await loadModel(model, { cacheDir: options.cacheDir });
        const quality = await measureQuality(loaded, clipPath(clip), truthPath(clip), Infinity, (name) => loadModel(name, { cacheDir: options.cacheDir }));
        rows.push([modelColumn(modelLabel(model, loaded.name), quality), clip, quality.frames, quality.iou, quality.mad, quality.dtssd, quality.msPerFrame]);
      } catch (error) {
        rows.push([model, clip, `failed: ${(error as Error).message.slice(0, 160)}`]);
      }
    }
  }
  console.log('\n## Quality against the ground-truth alpha (IoU at 0.5 higher is better; MAD and dtSSD x1e-3, lower is better)\n');
  console.log(renderTable(['model', 'clip', 'frames', 'IoU', 'MAD', 'dtSSD', 'segment ms/f'], rows, [0, 0, 0, 3, 1, 1, 1]));
}

async function peerSection(options: BenchOptions): Promise<void> {
  const clip: ClipName = 'portrait-pan';
  const video = await probe(clipPath(clip));
  const input: PeerCaseInput = { clipPath: clipPath(clip), truthPath: truthPath(clip), width: video.width, height: video.height, frameCount: video.frameCount, frames: options.peerFrames };
  console.log('\n## Peer: @imgly/background-removal-node, its own pipeline frame by frame on portrait-pan\n');
  try {
    const peer = await runCase<PeerCaseOutput>('peer-case', input);
    console.log(
      renderTable(
        ['library', 'model', 'frames', 's/frame', 'first call s', 'IoU', 'MAD'],
        [[peer.library, peer.model, peer.frameIndices.length, peer.secondsPerFrame, peer.firstCallSeconds, peer.iou, peer.mad]],
        [0, 0, 0, 2, 2, 3, 1],
      ),
    );
    console.log(`frames ${peer.frameIndices.join(', ')} (compare the engine's quality table on the same clip)`);
  } catch (error) {
    console.log(`skipped: the peer library could not run here: ${(error as Error).message}`);
  }
}

async function main(): Promise<void> {
  const options = parseBenchOptions(process.env);
  console.log('# Backdrop engine benchmark\n');
  console.log(machineReport());
  console.log(`models ${options.models.join(',')}; formats ${options.formats.join(',')}; clips ${[...new Set([...options.speedClips, ...options.qualityClips])].join(',')}` +
    `${options.previewSeconds ? `; first ${options.previewSeconds} s of each clip` : ''}; sections ${[...options.sections].join(',')}`);
  const dir = await mkdtemp(join(tmpdir(), 'bench-engine-'));
  try {
    if (options.sections.has('speed')) await speedSection(options, dir);
    if (options.sections.has('quality')) await qualitySection(options);
    if (options.sections.has('quality') && options.models.includes('pro')) await proCostSection(options);
    if (options.sections.has('peer')) await peerSection(options);
    if (options.sections.has('memory')) await measureMemory(options, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: Error) => {
  console.error(error.stack ?? error.message);
  process.exit(1);
});
