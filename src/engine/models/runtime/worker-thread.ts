/**
 * Starts a worker thread on module `name` of `dir`: the compiled .js when there is one, else the
 * .ts through the `.ts` loader of runner/typescript-loader.ts (Jest runs sources).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Transferable, Worker } from 'node:worker_threads';
import { EngineError } from '../../types';
import { THREAD_BOOTSTRAP, threadEntryData } from '../../runner/typescript-loader';

/** `transferList`: what `data` holds that moves to the thread (a MessagePort) */
export function startWorkerThread(dir: string, name: string, data: Record<string, unknown>, transferList: Transferable[] = []): Worker {
  const compiled = join(dir, `${name}.js`);
  if (existsSync(compiled)) return new Worker(compiled, { workerData: data, transferList });
  return new Worker(THREAD_BOOTSTRAP, { eval: true, transferList, workerData: { ...data, ...threadEntryData(dir, name) } });
}

/** what an inference thread says once it has tried to load its model */
export type ThreadLoaded = { kind: 'ready' } | { kind: 'failed'; message: string };

/** resolves when the inference thread of `model` has loaded it (its first message says `ready`) */
export function whenThreadReady(worker: Worker, model: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onMessage = (message: { kind: string; message?: string }) => {
      worker.off('error', onError);
      if (message.kind === 'ready') resolve();
      else reject(new EngineError('model_unavailable', `onnxruntime could not load ${model}: ${message.kind === 'failed' ? message.message : message.kind}`));
    };
    const onError = (error: Error) => reject(new EngineError('model_unavailable', `${model}'s inference thread failed to start: ${error.message}`));
    worker.once('message', onMessage);
    worker.once('error', onError);
  });
}
