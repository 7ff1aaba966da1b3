/**
 * How run.ts talks to the processes it starts for single measurements (speed-case, peer-case):
 * the input as JSON in an environment variable, the output as one prefixed JSON line on stdout.
 */
import { spawn } from 'node:child_process';
import { engineProcessEnv } from '../../src/engine/runner/engine-environment';
import { nodeEntryArgs } from '../../src/engine/runner/typescript-loader';

export const CASE_INPUT_ENV = 'BENCH_CASE_INPUT';
export const CASE_RESULT_PREFIX = 'BENCH_CASE_RESULT ';
/** cases that run the engine start as the worker starts its engine processes (engine-environment.ts); the peer's case as any process does */
const ENGINE_CASES: readonly string[] = ['speed-case'];

export function readCaseInput<T>(): T {
  const raw = process.env[CASE_INPUT_ENV];
  if (!raw) throw new Error(`${CASE_INPUT_ENV} is not set: this module is started by bench/engine/run.ts`);
  return JSON.parse(raw) as T;
}

export function writeCaseResult(result: unknown): void {
  process.stdout.write(`${CASE_RESULT_PREFIX}${JSON.stringify(result)}\n`);
}

/** Runs a case module in a fresh node process and returns its result, or throws with its stderr. */
export function runCase<T>(moduleName: string, input: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, nodeEntryArgs(__dirname, moduleName), {
      env: { ...(ENGINE_CASES.includes(moduleName) ? engineProcessEnv(process.env) : process.env), [CASE_INPUT_ENV]: JSON.stringify(input) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4000)));
    child.on('error', reject);
    child.on('close', (code) => {
      const line = stdout.split('\n').find((candidate) => candidate.startsWith(CASE_RESULT_PREFIX));
      if (code === 0 && line) resolve(JSON.parse(line.slice(CASE_RESULT_PREFIX.length)) as T);
      else reject(new Error(`${moduleName} failed (exit ${code}): ${lastLines(stderr)}`));
    });
  });
}

/** Runs `main` as a case process: exit 0 after its result line, 1 with the error on stderr. */
export function runAsCase(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (error: Error) => {
      process.stderr.write(`${error.stack ?? error.message}\n`);
      process.exit(1);
    },
  );
}

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-4).join(' | ');
}
