/**
 * A RunPod-protocol worker server in this test process on loopback (`startLoopbackWorker`), and an API
 * whose WorkerGateway is remote and points at it (`startApiOnWorker`): the setup the remote worker
 * specs share. Each spec passes only what it tunes.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { loadWorkerServerConfig, WorkerServerConfig } from '../../src/config/worker-server-config';
import { JobProcessor } from '../../src/worker/job-queue';
import { RunningWorker, startWorker } from '../../src/worker/worker-app';
import { SHARED_MODEL_CACHE } from './processes';
import { startTestApp, TestApp } from './test-app';

export interface LoopbackWorker {
  worker: RunningWorker;
  config: WorkerServerConfig;
  /** the worker's WORKER_WORK_DIR (empty once its jobs are done) */
  workDir: string;
  /** a fresh directory the spec may use too; removed by close() */
  dir: string;
  close(): Promise<void>;
}

/**
 * The worker server with `key`, on 127.0.0.1 and a free port, its own work directory, the shared model
 * cache; `env` adds or overrides worker variables. `processor` replaces the real engine processor.
 */
export async function startLoopbackWorker(
  key: string,
  env: Record<string, string> = {},
  processor?: (config: WorkerServerConfig) => JobProcessor,
): Promise<LoopbackWorker> {
  const dir = await mkdtemp(path.join(tmpdir(), 'backdrop-loopback-worker-'));
  const workDir = path.join(dir, 'work');
  await mkdir(workDir);
  const config = loadWorkerServerConfig({
    WORKER_API_KEY: key,
    WORKER_HOST: '127.0.0.1',
    WORKER_PORT: '0',
    WORKER_RESULT_TTL_SECONDS: '60',
    WORKER_TRANSFER_TIMEOUT_MS: '10000',
    MODEL_CACHE_DIR: SHARED_MODEL_CACHE,
    WORKER_WORK_DIR: workDir,
    ...env,
  });
  const worker = await startWorker(config, processor?.(config));
  return {
    worker,
    config,
    workDir,
    dir,
    close: async () => {
      await worker.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The API on the test database, handing its jobs to the worker server at `workerUrl`; `env` adds or overrides. */
export function startApiOnWorker(workerUrl: string, workerKey: string, env: Record<string, string> = {}): Promise<TestApp> {
  return startTestApp(
    {
      WORKER_GATEWAY: 'remote',
      WORKER_URLS: workerUrl,
      WORKER_API_KEY: workerKey,
      WORKER_POLL_INTERVAL_MS: '250',
      RATE_LIMIT_PER_MINUTE: '100000',
      ...env,
    },
    { realWorkerGateway: true },
  );
}
