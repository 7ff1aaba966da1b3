/**
 * Starts an engine child process, from compiled JavaScript or from TypeScript sources.
 *
 * Compiled (dist/src/engine/runner/*.js after `npm run build`): node runs child-main.js directly.
 * From sources (Jest/ts-jest), node starts with the `.ts` loader of typescript-loader.ts, then
 * requires child-main.ts; no build is needed before the tests.
 *
 * The child starts with the environment the entry point configured (engine-environment.ts: the
 * parent's with ONNX Runtime's telemetry off and the engine's malloc settings). It gets its own
 * process group (`detached`), so the pool can kill it together with the ffmpeg processes it
 * started when a cancel is not acknowledged in time.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { configuredMediaBinaries } from '../media/binaries';
import { configuredEngineProcessEnv } from './engine-environment';
import { ChildConfig } from './messages';
import { nodeEntryArgs } from './typescript-loader';

export function launchEngineChild(config: ChildConfig): ChildProcess {
  const childConfig: ChildConfig = { ...config, binaries: configuredMediaBinaries() };
  return spawn(process.execPath, [...nodeEntryArgs(__dirname, 'child-main'), JSON.stringify(childConfig)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: configuredEngineProcessEnv(),
    detached: true,
  });
}
