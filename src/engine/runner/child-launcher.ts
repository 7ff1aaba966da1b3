/**
 * Starts an engine child process, from compiled JavaScript or from TypeScript sources.
 *
 * Compiled (dist/src/engine/runner/*.js after `npm run build`): node runs child-main.js directly.
 *
 * From sources (Jest/ts-jest, or any `.ts` runtime): there is no ts-node in this project, so node
 * starts with a ten-line bootstrap passed through `-e` that registers a `.ts` loader built on
 * `typescript.transpileModule` (the same per-file transpilation ts-jest does with
 * isolatedModules), then requires child-main.ts. Nothing is written to disk and no build is needed
 * before the tests; the cost is the transpilation of the engine's modules at child start-up.
 *
 * The child gets its own process group (`detached`), so the pool can kill it together with the
 * ffmpeg processes it started when a cancel is not acknowledged in time.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { configuredMediaBinaries } from '../media/binaries';
import { ChildConfig } from './messages';

const TYPESCRIPT_BOOTSTRAP = `
const fs = require('fs');
const ts = require(process.argv[2]);
const options = { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true,
  experimentalDecorators: true, emitDecoratorMetadata: true, resolveJsonModule: true, inlineSourceMap: true };
require.extensions['.ts'] = (module, filename) => {
  const output = ts.transpileModule(fs.readFileSync(filename, 'utf8'), { fileName: filename, compilerOptions: options });
  module._compile(output.outputText, filename);
};
require(process.argv[1]);
`;

/** node's arguments to run module `name` of `dir`: the compiled .js when there is one, else the .ts. */
export function nodeEntryArgs(dir: string, name: string): string[] {
  const compiled = join(dir, `${name}.js`);
  if (existsSync(compiled)) return [compiled];
  return ['-e', TYPESCRIPT_BOOTSTRAP, join(dir, `${name}.ts`), require.resolve('typescript')];
}

export function launchEngineChild(config: ChildConfig): ChildProcess {
  const childConfig: ChildConfig = { ...config, binaries: configuredMediaBinaries() };
  return spawn(process.execPath, [...nodeEntryArgs(__dirname, 'child-main'), JSON.stringify(childConfig)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    detached: true,
  });
}
