/**
 * A process that asks the model cache for one model (model-file-cache.spec.ts): its build, where it
 * runs, writes this process's id to a log and takes `holdMs`, as a conversion takes seconds.
 */
import { appendFileSync } from 'node:fs';
import { cachedModelFile } from '../../../src/engine/models/runtime/model-file-cache';

const { target, log, holdMs } = JSON.parse(process.argv[process.argv.length - 1]) as { target: string; log: string; holdMs: number };
cachedModelFile(target, () => {
  appendFileSync(log, `${process.pid}\n`);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, holdMs);
  return Buffer.from('a converted model');
});
