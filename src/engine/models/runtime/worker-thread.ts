/**
 * Starts a worker thread on module `name` of `dir`: the compiled .js when there is one, else the
 * .ts through a small transpiling bootstrap (the same per-file transpilation as the engine child's
 * launcher in runner/child-launcher.ts: there is no ts-node in this project and Jest runs sources).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Transferable, Worker } from 'node:worker_threads';

const TYPESCRIPT_WORKER_BOOTSTRAP = `
const fs = require('fs');
const { workerData } = require('worker_threads');
const ts = require(workerData.typescript);
const options = { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, inlineSourceMap: true };
require.extensions['.ts'] = (module, filename) => {
  const output = ts.transpileModule(fs.readFileSync(filename, 'utf8'), { fileName: filename, compilerOptions: options });
  module._compile(output.outputText, filename);
};
require(workerData.entry);
`;

/** `transferList`: what `data` holds that moves to the thread (a MessagePort) */
export function startWorkerThread(dir: string, name: string, data: Record<string, unknown>, transferList: Transferable[] = []): Worker {
  const compiled = join(dir, `${name}.js`);
  if (existsSync(compiled)) return new Worker(compiled, { workerData: data, transferList });
  return new Worker(TYPESCRIPT_WORKER_BOOTSTRAP, {
    eval: true,
    transferList,
    workerData: { ...data, entry: join(dir, `${name}.ts`), typescript: require.resolve('typescript') },
  });
}
