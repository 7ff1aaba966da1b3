/**
 * Entry point of an engine child process. It stays warm between jobs: each model is loaded once
 * per child and reused. One job at a time; a cancel aborts the run (ffmpeg children killed,
 * partial output removed). When the parent goes away, or on SIGTERM, the child aborts and exits.
 */
import { runEngine } from '../engine';
import { EngineError, EngineProgress, ModelName, SegmentationModel } from '../types';
import { useMediaBinaries } from '../media/binaries';
import { keepSpawner } from '../media/spawner';
import { ChildConfig, ChildMessage, ParentMessage } from './messages';

type LoadModel = (name: ModelName, options: { cacheDir: string }) => Promise<SegmentationModel>;

const PROGRESS_INTERVAL_MS = 100;

const config = JSON.parse(process.argv[process.argv.length - 1]) as ChildConfig;
useMediaBinaries(config.binaries ?? {});
keepSpawner();
const models = new Map<ModelName, Promise<SegmentationModel>>();
const running = new Map<number, AbortController>();

/** A parent that died (killed, crashed) leaves nobody to tell: the child shuts down instead of crashing on EPIPE. */
function send(message: ChildMessage): void {
  if (!process.connected) return shutDown();
  process.send?.(message, undefined, undefined, (error: Error | null) => error && shutDown());
}

async function loadModel(name: ModelName, options: { cacheDir: string }): Promise<SegmentationModel> {
  let model = models.get(name);
  if (!model) {
    model = import(config.modelModule).then((module: { loadModel: LoadModel }) => module.loadModel(name, options));
    models.set(name, model);
    model.catch(() => models.delete(name)); // a failed load is retried by the next job
  }
  return model;
}

async function run(message: Extract<ParentMessage, { type: 'run' }>): Promise<void> {
  const controller = new AbortController();
  running.set(message.jobId, controller);
  let lastProgressAt = 0;
  const onProgress = (progress: EngineProgress) => {
    const now = Date.now();
    if (now - lastProgressAt < PROGRESS_INTERVAL_MS && progress.framesDone < progress.framesTotal) return;
    lastProgressAt = now;
    send({ type: 'progress', jobId: message.jobId, progress });
  };
  try {
    const result = await runEngine(message.request, { loadModel, cacheDir: config.cacheDir, workDir: message.workDir }, onProgress, controller.signal);
    send({ type: 'result', jobId: message.jobId, result });
  } catch (error) {
    const code = error instanceof EngineError ? error.code : undefined;
    send({ type: 'error', jobId: message.jobId, error: { code, message: error instanceof Error ? error.message : String(error) } });
  } finally {
    running.delete(message.jobId);
  }
}

process.on('message', (message: ParentMessage) => {
  if (message.type === 'run') void run(message);
  else running.get(message.jobId)?.abort();
});
/** Abort the runs (their ffmpeg processes are killed, partial output removed), then leave. */
function shutDown(): void {
  for (const controller of running.values()) controller.abort();
  setTimeout(() => process.exit(0), 1000).unref();
}
process.on('disconnect', shutDown);
process.on('SIGTERM', shutDown);
send({ type: 'ready' });
