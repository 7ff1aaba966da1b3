/**
 * Starts a worker thread on module `name` of `dir`: the compiled .js when there is one, else the
 * .ts through the `.ts` loader of runner/typescript-loader.ts (Jest runs sources).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Transferable, Worker } from 'node:worker_threads';
import { EngineError } from '../../types';
import { THREAD_BOOTSTRAP, threadEntryData } from '../../runner/typescript-loader';
import { ThreadCloseRequest } from './thread-close';

/** `transferList`: what `data` holds that moves to the thread (a MessagePort) */
export function startWorkerThread(dir: string, name: string, data: Record<string, unknown>, transferList: Transferable[] = []): Worker {
  const compiled = join(dir, `${name}.js`);
  if (existsSync(compiled)) return new Worker(compiled, { workerData: data, transferList });
  return new Worker(THREAD_BOOTSTRAP, { eval: true, transferList, workerData: { ...data, ...threadEntryData(dir, name) } });
}

/** what an inference thread says once it has tried to load its model */
export type ThreadLoaded = { kind: 'ready' } | { kind: 'failed'; message: string };

/** a thread that has not ended by then is stopped where it is: longer than any run (ISNet's take seconds on a slow CPU) */
const THREAD_CLOSE_TIMEOUT_MS = 30_000;

/**
 * Ends an inference thread once its runs and loads are done, and resolves when it has ended.
 * Stopping it (`terminate`) while onnxruntime still worked for it, loading a model or in a run,
 * aborted the whole process (a native callback into the thread's torn-down context). One that
 * has not ended within `timeoutMs` is stopped all the same.
 */
export async function closeThread(worker: Worker, timeoutMs = THREAD_CLOSE_TIMEOUT_MS): Promise<void> {
  if (worker.threadId === -1) return; // ended already
  let timer: NodeJS.Timeout | undefined;
  const ended = new Promise<boolean>((resolve) => {
    worker.once('exit', () => resolve(true));
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  worker.postMessage({ kind: 'close' } satisfies ThreadCloseRequest);
  const endedItself = await ended;
  clearTimeout(timer);
  if (!endedItself) await worker.terminate();
}

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
