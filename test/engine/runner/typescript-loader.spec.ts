import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { nodeEntryArgs, THREAD_BOOTSTRAP, threadEntryData } from '../../../src/engine/runner/typescript-loader';

const run = promisify(execFile);

/**
 * A module in TypeScript that imports another and reports what it computed and whether the
 * compiler was loaded in its process (require.cache is the process's module cache).
 */
const ENTRY = `import { greeting } from './greeting';
const compilerLoaded: boolean = Object.keys(require.cache).some((path) => path.includes('/node_modules/typescript/'));
const report = JSON.stringify({ greeting: greeting('loader'), compilerLoaded });
if (require('node:worker_threads').parentPort) require('node:worker_threads').parentPort.postMessage(report);
else process.stdout.write(report);
`;
const greetingSource = (word: string) => `export const greeting = (name: string): string => '${word}, ' + name;\n`;

describe('running the engine from TypeScript sources (typescript-loader.ts)', () => {
  let dir: string;
  let cacheDir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ts-loader-'));
    cacheDir = join(dir, 'transpiled');
    await writeFile(join(dir, 'entry.ts'), ENTRY);
    await writeFile(join(dir, 'greeting.ts'), greetingSource('hello'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const inProcess = async () => JSON.parse((await run(process.execPath, nodeEntryArgs(dir, 'entry', cacheDir))).stdout) as { greeting: string; compilerLoaded: boolean };
  const inThread = () =>
    new Promise<{ greeting: string; compilerLoaded: boolean }>((resolve, reject) => {
      const worker = new Worker(THREAD_BOOTSTRAP, { eval: true, workerData: threadEntryData(dir, 'entry', cacheDir) });
      worker.once('message', (report: string) => resolve(JSON.parse(report)));
      worker.once('error', reject);
    });

  it('transpiles once: a later process loads the transpiled files without the compiler, and a changed source is transpiled again', async () => {
    expect(await inProcess()).toEqual({ greeting: 'hello, loader', compilerLoaded: true });
    expect((await readdir(cacheDir)).filter((name) => name.endsWith('.js'))).toHaveLength(2);
    expect(await inProcess()).toEqual({ greeting: 'hello, loader', compilerLoaded: false });

    await writeFile(join(dir, 'greeting.ts'), greetingSource('goodbye'));
    expect(await inProcess()).toEqual({ greeting: 'goodbye, loader', compilerLoaded: true });
    expect((await readdir(cacheDir)).filter((name) => name.endsWith('.js'))).toHaveLength(3);
  }, 30000);

  it('gives inference threads the same cache as processes: neither loads the compiler after the other transpiled', async () => {
    expect(await inThread()).toEqual({ greeting: 'hello, loader', compilerLoaded: true });
    expect(await inProcess()).toEqual({ greeting: 'hello, loader', compilerLoaded: false });
    expect(await inThread()).toEqual({ greeting: 'hello, loader', compilerLoaded: false });
    await writeFile(join(dir, 'greeting.ts'), greetingSource('hi'));
    expect(await inThread()).toEqual({ greeting: 'hi, loader', compilerLoaded: true });
  }, 30000);
});
