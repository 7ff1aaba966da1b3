/**
 * Running the engine's processes and inference threads from TypeScript sources (Jest runs sources,
 * and there is no ts-node in this project): a `.ts` loader built on `typescript.transpileModule`
 * (the per-file transpilation ts-jest does with isolatedModules), handed to node as source text,
 * since the loader cannot itself be TypeScript. Compiled builds never use it.
 *
 * The transpiled files are kept under .cache/transpiled, named by a hash of the compiler's version
 * and options, the file's path and its source, so a later process or thread that loads the same sources
 * neither loads the compiler (a 9 MB module: about 0.3 s of CPU) nor transpiles again. Each engine
 * child, ffmpeg spawner and inference thread a test starts used to pay both: 1.9 s of CPU for the
 * engine's modules in a child, against 0.13 s for the compiled ones.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** where the transpiled sources are kept: the project's .cache, beside the models */
export const TRANSPILED_DIR = resolve(__dirname, '..', '..', '..', '.cache', 'transpiled');

/** the compiler options of every loaded file (those tsconfig.json sets that change the output) */
const OPTIONS = 'module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, experimentalDecorators: true, emitDecoratorMetadata: true, resolveJsonModule: true, inlineSourceMap: true';

/** defines `registerTypeScript(typescriptPath, cacheDir)`: `.ts` files load through the cache, the compiler only on a miss */
const LOADER = `
function registerTypeScript(typescriptPath, cacheDir) {
  const fs = require('fs');
  const path = require('path');
  const crypto = require('crypto');
  const { threadId } = require('worker_threads');
  const version = JSON.parse(fs.readFileSync(path.join(path.dirname(typescriptPath), '..', 'package.json'), 'utf8')).version;
  let ts;
  require.extensions['.ts'] = (module, filename) => {
    const source = fs.readFileSync(filename, 'utf8');
    const key = crypto.createHash('sha256').update(version).update('\\0').update(${JSON.stringify(OPTIONS)}).update('\\0').update(filename).update('\\0').update(source).digest('hex');
    const cached = path.join(cacheDir, key + '.js');
    let code;
    try {
      code = fs.readFileSync(cached, 'utf8');
    } catch {
      ts = ts || require(typescriptPath);
      code = ts.transpileModule(source, { fileName: filename, compilerOptions: { ${OPTIONS} } }).outputText;
      try {
        fs.mkdirSync(cacheDir, { recursive: true });
        const partial = cached + '.' + process.pid + '-' + threadId;
        fs.writeFileSync(partial, code);
        fs.renameSync(partial, cached);
      } catch {
        // a cache that cannot be written costs only the next start's transpilation
      }
    }
    module._compile(code, filename);
  };
}
`;

/** node's arguments to run module `name` of `dir` in a process: the compiled .js when there is one, else the .ts */
export function nodeEntryArgs(dir: string, name: string, transpiledDir = TRANSPILED_DIR): string[] {
  const compiled = join(dir, `${name}.js`);
  if (existsSync(compiled)) return [compiled];
  const bootstrap = `${LOADER}\nregisterTypeScript(process.argv[2], process.argv[3]);\nrequire(process.argv[1]);\n`;
  return ['-e', bootstrap, join(dir, `${name}.ts`), require.resolve('typescript'), transpiledDir];
}

/** a worker thread's eval'd source that runs the .ts module `workerData.entry` */
export const THREAD_BOOTSTRAP = `${LOADER}
const { workerData } = require('worker_threads');
registerTypeScript(workerData.typescript, workerData.transpiledDir);
require(workerData.entry);
`;

/** what THREAD_BOOTSTRAP reads from its workerData beside the thread's own data */
export function threadEntryData(dir: string, name: string, transpiledDir = TRANSPILED_DIR): { entry: string; typescript: string; transpiledDir: string } {
  return { entry: join(dir, `${name}.ts`), typescript: require.resolve('typescript'), transpiledDir };
}
