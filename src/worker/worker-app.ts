import { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { createLogger } from '../common/logging/pino-logger';
import { withoutUrlSecrets } from '../common/logging/redact';
import { EngineProcessPool } from '../engine/runner/engine-process-pool';
import { EnginePool } from '../common/worker-protocol/engine-request';
import { engineProcessor } from './engine-processor';
import { DurableWorkerJobQueue } from './durable-job-queue';
import { JobProcessor, JobQueueOptions, WorkerJobQueue, WorkerQueue } from './job-queue';
import { WorkerServerConfig } from '../config/worker-server-config';
import { createWorkerServer } from './worker-server';
import { webhookSender } from './webhook-sender';
import { loggedRuns } from './run-log';
import { listenFailure } from '../listen-failure';

export interface RunningWorker {
  url: string;
  queue: WorkerQueue;
  close(): Promise<void>;
}

/**
 * Starts the worker server: the engine's process pool (or `processor`, for tests), the job queue and
 * the HTTP server. close() stops taking requests, cancels what runs and stops the engine children.
 * Each run's start and end, and each webhook that could not be sent, is a JSON line of `logger`.
 */
export async function startWorker(config: WorkerServerConfig, processor?: JobProcessor, logger: Logger = createLogger('silent')): Promise<RunningWorker> {
  let pool: EnginePool | null = null;
  if (!processor) {
    pool = new EngineProcessPool({ concurrency: config.concurrency, cacheDir: config.modelCacheDir, workDir: config.workDir });
    processor = engineProcessor(pool, config);
  }
  const queueOptions: JobQueueOptions = {
    concurrency: config.concurrency,
    queueSize: config.queueSize,
    resultTtlMs: config.resultTtlMs,
    onFinished: webhookSender({ timeoutMs: config.transferTimeoutMs, log: (line) => logger.warn(withoutUrlSecrets(line)) }),
  };
  const runs = loggedRuns(processor, logger);
  // Durable when WORKER_REDIS_URL or WORKER_DATABASE_URL is set; in memory (a restart loses its jobs) otherwise.
  const queue: WorkerQueue = config.durableQueue ? await DurableWorkerJobQueue.open(runs, queueOptions, config.durableQueue) : new WorkerJobQueue(runs, queueOptions);
  const server = createWorkerServer(queue, config.apiKey);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(new Error(listenFailure(error, config.host, config.port, { host: 'WORKER_HOST', port: 'WORKER_PORT' }), { cause: error })));
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    queue,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await queue.close();
      await pool?.close();
      await closed;
    },
  };
}
