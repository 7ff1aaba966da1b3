/**
 * DAVIS benchmark (`npm run bench:davis`): each model on the DAVIS 2016 sequences in
 * ../shared/media/davis (and the composites car-slide and portrait-pan), through the engine's own
 * decoding; per sequence IoU at 0.5, MAD and dtSSD (x1e-3) and ms per frame, the means, and the
 * floors of issue 15 beside them.
 *
 * BENCH_MODELS (default human,original; `per-frame-selfie` adds MediaPipe's selfie model run frame by
 * frame with no memory, the flicker baseline `human` is held below), BENCH_CLIPS (default every DAVIS sequence and the two
 * composites), BENCH_FRAMES (score only the first N frames of each clip), BENCH_CACHE_DIR.
 */
import '../onnx-telemetry-off';
import { join } from 'node:path';
import { ModelName, SegmentationModel } from '../../src/engine/types';
import { cpuLine } from '../engine/machine';
import { loadModelsModule } from '../engine/models';
import { MEDIA_DIR } from '../engine/options';
import { mean } from '../engine/stats';
import { Cell, renderTable } from '../engine/table';
import { measureQuality, modelColumn, QualityRow } from '../engine/quality';
import { perFrameSelfie } from '../matting/per-frame-selfie';
import { COMPOSITES, DAVIS_SEQUENCES, FLOORS } from './sequences';

const list = (value: string | undefined, fallback: readonly string[]) => (value ? value.split(',').map((v) => v.trim()) : [...fallback]);
const PER_FRAME_SELFIE = 'per-frame-selfie';
const models = list(process.env.BENCH_MODELS, ['human', 'original']);
const clips = list(process.env.BENCH_CLIPS, [...DAVIS_SEQUENCES, ...COMPOSITES]);
const maxFrames = process.env.BENCH_FRAMES ? Number(process.env.BENCH_FRAMES) : Infinity;
const cacheDir = process.env.BENCH_CACHE_DIR ?? join(process.cwd(), '.cache', 'models');

export function clipPaths(clip: string): { video: string; truth: string } {
  // a path (e.g. a clip of `npm run media:composites`) is taken as it is
  const base = clip.includes('/') ? clip : (COMPOSITES as readonly string[]).includes(clip) ? join(MEDIA_DIR, clip) : join(MEDIA_DIR, 'davis', clip);
  return { video: `${base}.mp4`, truth: `${base}.alpha.mkv` };
}


/** each floor of `model` over the clips measured: its figure and whether it holds */
export function floorLines(model: string, scores: Map<string, QualityRow>): string[] {
  const lines: string[] = [];
  for (const floor of FLOORS[model] ?? []) {
    const measured = floor.sequences.filter((s) => scores.has(s));
    if (measured.length === 0) continue;
    const ious = measured.map((s) => scores.get(s)!.iou);
    const partial = measured.length < floor.sequences.length ? ` (${measured.length} of ${floor.sequences.length} clips)` : '';
    if (floor.mean !== undefined) lines.push(`${model}: mean IoU over ${measured.join(', ')} ${mean(ious).toFixed(3)} (floor ${floor.mean}): ${mean(ious) >= floor.mean ? 'met' : 'MISSED'}${partial}`);
    if (floor.each !== undefined) {
      const lowest = Math.min(...ious);
      lines.push(`${model}: lowest IoU over ${measured.join(', ')} ${lowest.toFixed(3)} (floor ${floor.each} each): ${lowest >= floor.each ? 'met' : 'MISSED'}${partial}`);
    }
  }
  return lines;
}

export async function runDavis(load: (name: string) => Promise<SegmentationModel>): Promise<void> {
  console.log(`DAVIS benchmark: ${cpuLine()}; frames per clip: ${Number.isFinite(maxFrames) ? maxFrames : 'all'}`);
  for (const name of models) {
    const model = await load(name);
    const scores = new Map<string, QualityRow>();
    const rows: Cell[][] = [];
    for (const clip of clips) {
      const paths = clipPaths(clip);
      const score = await measureQuality(model, paths.video, paths.truth, maxFrames, load);
      scores.set(clip, score);
      rows.push([modelColumn(name, score), clip, score.frames, score.iou, score.mad, score.dtssd, score.msPerFrame, score.cpuMsPerFrame]);
      console.log(`${modelColumn(name, score)} ${clip}: IoU ${score.iou.toFixed(3)}, dtSSD ${score.dtssd.toFixed(2)}, ${score.msPerFrame.toFixed(0)} ms/frame, CPU ${score.cpuMsPerFrame.toFixed(0)} ms/frame`);
    }
    const davis = DAVIS_SEQUENCES.filter((s) => scores.has(s));
    if (davis.length) rows.push([name, `mean of ${davis.length} DAVIS`, undefined, mean(davis.map((s) => scores.get(s)!.iou)), mean(davis.map((s) => scores.get(s)!.mad)), mean(davis.map((s) => scores.get(s)!.dtssd)), undefined, undefined]);
    console.log(`\n${renderTable(['model', 'clip', 'frames', 'IoU', 'MAD x1e-3', 'dtSSD x1e-3', 'ms/frame', 'CPU ms/frame'], rows, [0, 0, 0, 3, 1, 2, 0, 0])}`);
    for (const line of floorLines(name, scores)) console.log(line);
    console.log('');
  }
}

if (require.main === module) {
  loadModelsModule()
    .then((loadModel) => runDavis(async (name) => (name === PER_FRAME_SELFIE ? perFrameSelfie(cacheDir) : loadModel(name as ModelName, { cacheDir }))))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
