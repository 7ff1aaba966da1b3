/**
 * `npm run worker:serve`: the standalone worker server for GPU machines, speaking the RunPod
 * serverless protocol to the API's RemoteHttpWorkerGateway (README: "Remote GPU workers").
 */
import { processEnvironment } from '../config/environment';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { scratchRootUnder, useProcessScratchRoot } from '../config/scratch-root';
import { loadWorkerServerConfig } from '../config/worker-server-config';
import { useMediaBinaries } from '../engine/media/binaries';
import { useEngineProcessEnv } from '../engine/runner/engine-environment';
import { createLogger } from '../common/logging/pino-logger';
import { startWorker } from './worker-app';

async function main(): Promise<void> {
  await useProcessScratchRoot();
  const configured = loadWorkerServerConfig(processEnvironment());
  // a WORKER_WORK_DIR of its own is swept as TMPDIR is (the process's scratch root, already swept)
  const ownWorkDir = path.resolve(configured.workDir) !== path.resolve(tmpdir());
  const config = ownWorkDir ? { ...configured, workDir: await scratchRootUnder(configured.workDir) } : configured;
  useMediaBinaries(config.mediaBinaries);
  useEngineProcessEnv(config.engineProcessEnv);
  const logger = createLogger(config.logLevel);
  const worker = await startWorker(config, undefined, logger);
  process.stdout.write(`Backdrop worker server listening on ${config.host}:${new URL(worker.url).port} (concurrency ${config.concurrency}, queue ${config.queueSize}, ${config.durableQueue ? `durable on ${config.durableQueue.redisUrl ? 'Redis' : 'Postgres'}` : 'in memory: a restart loses its jobs'})\n`);
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    worker.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: Error) => {
  process.stderr.write(`Backdrop worker could not start: ${error.message}\n`);
  process.exit(1);
});
