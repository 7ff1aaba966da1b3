/**
 * One engine run, in a fresh process so its peak memory is its own: loads the model (and opens
 * and closes a session at the clip's size, so the run finds the model's sessions for that size open;
 * the load and open are timed apart), runs runEngine on a clip while sampling RSS (this process and
 * its ffmpeg children), records the mattes for the floor, and prints one JSON line. Started by run.ts.
 *
 * With `afterFirstJob`, the same job runs once before the measured one, timed apart (`firstJob`):
 * the measured run is then a worker's next video, not its first. A process's first job pays for
 * its start beyond the sessions' opening: V8 compiling the engine's and the RVM workers' code,
 * onnxruntime's first runs. bench:matting on an AMD EPYC Zen 5, five processes (medians): `human`
 * 21.1 fps in the first job and 21.6 in the second at 640x360, 18.1 and 18.6 at 1280x720;
 * `light` 59.5 and 62.8, 42.9 and 45.4.
 */
import { join } from 'node:path';
import { OUTPUT_EXTENSIONS } from '../../src/contract/job-settings';
import { runEngine } from '../../src/engine/engine';
import { probe } from '../../src/engine/media/input-gate';
import { EngineRequest, ModelName, OutputFormat, SegmentationModel } from '../../src/engine/types';
import { loadModelsModule } from './models';
import { RssSampler, ThreadCpuSampler, withCpuTime } from './process-tree';
import { syntheticModel } from './synthetic-model';
import { readCaseInput, runAsCase, writeCaseResult } from './case-protocol';
import { MatteRecording, recordingModel } from './recording-model';

export interface SpeedCaseInput {
  model: ModelName;
  format: OutputFormat;
  inputPath: string;
  outDir: string;
  cacheDir: string;
  previewSeconds?: number;
  /** run the zero-cost synthetic model instead of a real one (pipeline-only measurements) */
  synthetic?: boolean;
  /** run the job once before the measured run (see above) */
  afterFirstJob?: boolean;
}

export interface SpeedCaseOutput {
  modelUsed: ModelName;
  modelLoadMs: number;
  wallMs: number;
  /** CPU time of the run: this process's threads and its ffmpeg children (undefined without /proc) */
  cpuMs?: number;
  /** CPU ms of this process's three busiest threads over the run, busiest first (ThreadCpuSampler; empty without /proc) */
  busiestThreadsMs: number[];
  frames: number;
  width: number;
  height: number;
  peakNodeRss: number;
  peakTreeRss: number;
  mattes: MatteRecording;
  outputPath: string;
  notes: string[];
  /** the job run first, with `afterFirstJob` */
  firstJob?: { wallMs: number };
}

/** RVM's stages (up to three) or one model's inference thread, and the engine's own */
const BUSIEST_THREADS = 3;

async function main(): Promise<void> {
  const input = readCaseInput<SpeedCaseInput>();
  const loadStarted = performance.now();
  const model = input.synthetic ? syntheticModel : await (await loadModelsModule())(input.model, { cacheDir: input.cacheDir });
  // as a worker that has already served a video of this size: the model's sessions for it are open
  const video = await probe(input.inputPath);
  await (await model.createSession({ width: video.width, height: video.height, fps: video.fps })).close();
  const modelLoadMs = performance.now() - loadStarted;

  const extension = OUTPUT_EXTENSIONS[input.format];
  const outputPath = join(input.outDir, `engine-${input.model}.${extension}`);
  const request: EngineRequest = { inputPath: input.inputPath, outputPath, model: input.model, outputFormat: input.format, background: { type: 'transparent' }, previewDuration: input.previewSeconds };
  const runWith = (loaded: SegmentationModel) => () => runEngine(request, { loadModel: async () => loaded, cacheDir: input.cacheDir, workDir: input.outDir });
  const firstJob = input.afterFirstJob ? await timedRun(runWith(model)) : undefined;
  const { model: recorded, recording } = recordingModel(model, join(input.outDir, `mattes-${input.model}.gray`));
  const sampler = new RssSampler();
  const threads = new ThreadCpuSampler();
  sampler.start();
  threads.start();
  const { result, cpuMs, wallMs } = await timedRun(runWith(recorded));
  sampler.stop();
  threads.stop();

  const output: SpeedCaseOutput = {
    modelUsed: result.modelUsed,
    modelLoadMs,
    wallMs,
    cpuMs,
    busiestThreadsMs: threads.busiest(BUSIEST_THREADS),
    frames: result.frames,
    width: result.width,
    height: result.height,
    peakNodeRss: sampler.peakSelf,
    peakTreeRss: sampler.peakTree,
    mattes: recording,
    outputPath,
    notes: result.notes,
    firstJob: firstJob && { wallMs: firstJob.wallMs },
  };
  writeCaseResult(output);
}

async function timedRun<T>(run: () => Promise<T>): Promise<{ result: T; cpuMs?: number; wallMs: number }> {
  const started = performance.now();
  const { result, cpuMs } = await withCpuTime(run);
  return { result, cpuMs, wallMs: performance.now() - started };
}

runAsCase(main);
