import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { MediaBinaries } from '../engine/media/binaries';
import { engineProcessEnv } from '../engine/runner/engine-environment';
import { isRedisUrl, isUrlOf, mediaBinariesOf, POSTGRES_SCHEMA_NAME } from './app-config';
import { ConfigCheck, readEnvironment } from './config-error';

/** The worker server's view of the one configuration (`npm run worker:serve`, README "Remote GPU workers"). */
export interface WorkerServerConfig {
  /** expected in `authorization` on every request */
  apiKey: string;
  host: string;
  port: number;
  /** jobs processed at once (engine child processes) */
  concurrency: number;
  /** jobs that may wait beyond those; more are refused with 429 */
  queueSize: number;
  /** how long a finished job's status stays readable, then 404 */
  resultTtlMs: number;
  modelCacheDir: string;
  /** parent of each job's temporary directory */
  workDir: string;
  /** the input video (and background image) may not be larger: MAX_UPLOAD_BYTES, the API's cap */
  maxInputBytes: number;
  /** idle timeout of input downloads, output uploads and webhooks */
  transferTimeoutMs: number;
  mediaBinaries: MediaBinaries;
  /** the environment the engine's processes start with (engine-environment.ts) */
  engineProcessEnv: NodeJS.ProcessEnv;
  /** where the jobs are kept (durable queue); absent: in memory, lost on restart */
  durableQueue?: DurableQueueConfig;
  /** LOG_LEVEL: the JSON lines of each run's start and end, and of webhooks not sent */
  logLevel: string;
}

/** BullMQ on Redis (WORKER_REDIS_URL) or on Postgres (WORKER_DATABASE_URL), as the API's queue. */
export interface DurableQueueConfig {
  redisUrl?: string;
  databaseUrl?: string;
  /** BullMQ prefix (Redis) or schema (Postgres); several worker servers sharing it share the jobs */
  namespace: string;
  /** a job whose process died is picked up again once its lock, renewed every half of this, has lapsed */
  lockDurationMs: number;
  /** how often stalled jobs (their process died) are looked for */
  stalledIntervalMs: number;
}

// the API's checks of the same shapes: unchecked, a database number that was not one crashed the server with Redis's stack trace
const WORKER_SERVER_CHECKS: readonly ConfigCheck[] = [
  (env) => (env.WORKER_API_KEY ? undefined : { variable: 'WORKER_API_KEY', message: 'is required (at least 16 characters)' }),
  (env) => (POSTGRES_SCHEMA_NAME.test(env.WORKER_QUEUE_NAMESPACE) ? undefined : { variable: 'WORKER_QUEUE_NAMESPACE', message: 'must be letters, digits and _, not starting with a digit, at most 63' }),
  (env) => (!env.WORKER_REDIS_URL || isRedisUrl(env.WORKER_REDIS_URL) ? undefined : { variable: 'WORKER_REDIS_URL', message: 'must be a redis:// or rediss:// URL, with a database number if any (redis://host:6379/0)' }),
  (env) =>
    !env.WORKER_DATABASE_URL || isUrlOf(env.WORKER_DATABASE_URL, ['postgres:', 'postgresql:'])
      ? undefined
      : { variable: 'WORKER_DATABASE_URL', message: 'must be a postgres:// URL (postgres://user:password@host:5432/database)' },
];

/** Validates the environment through the same schema as the API; throws one ConfigError naming every bad variable. */
export function loadWorkerServerConfig(source: NodeJS.ProcessEnv): WorkerServerConfig {
  const env = readEnvironment(source, WORKER_SERVER_CHECKS);
  return {
    apiKey: env.WORKER_API_KEY ?? '',
    host: env.WORKER_HOST,
    port: env.WORKER_PORT,
    concurrency: env.WORKER_CONCURRENCY,
    queueSize: env.WORKER_QUEUE_SIZE,
    resultTtlMs: env.WORKER_RESULT_TTL_SECONDS * 1000,
    modelCacheDir: path.resolve(env.MODEL_CACHE_DIR ?? path.join(env.DATA_DIR, 'models')),
    workDir: path.resolve(env.WORKER_WORK_DIR ?? tmpdir()),
    maxInputBytes: env.MAX_UPLOAD_BYTES,
    transferTimeoutMs: env.WORKER_TRANSFER_TIMEOUT_MS,
    mediaBinaries: mediaBinariesOf(env),
    engineProcessEnv: engineProcessEnv(source),
    logLevel: env.LOG_LEVEL,
    durableQueue:
      env.WORKER_REDIS_URL || env.WORKER_DATABASE_URL
        ? {
            redisUrl: env.WORKER_REDIS_URL,
            databaseUrl: env.WORKER_REDIS_URL ? undefined : env.WORKER_DATABASE_URL,
            namespace: env.WORKER_QUEUE_NAMESPACE,
            lockDurationMs: env.WORKER_LOCK_DURATION_MS,
            stalledIntervalMs: env.WORKER_STALLED_INTERVAL_MS,
          }
        : undefined,
  };
}
