import { tmpdir } from 'node:os';
import * as path from 'node:path';

/** The worker server's settings, from its environment (it shares no configuration with the API). */
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
  /** the input video (and background image) may not be larger */
  maxInputBytes: number;
  /** idle timeout of input downloads, output uploads and webhooks */
  transferTimeoutMs: number;
  /** where the jobs are kept (durable queue); absent: in memory, lost on restart */
  durableQueue?: DurableQueueConfig;
}

// ---- durable queue (issue #17, part 2) ----

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

function durableQueueOf(env: NodeJS.ProcessEnv): DurableQueueConfig | undefined {
  const redisUrl = env.WORKER_REDIS_URL || undefined;
  const databaseUrl = env.WORKER_DATABASE_URL || undefined;
  if (!redisUrl && !databaseUrl) return undefined;
  const namespace = env.WORKER_QUEUE_NAMESPACE || 'backdrop_worker';
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(namespace)) throw new WorkerConfigError('WORKER_QUEUE_NAMESPACE', 'must be letters, digits and _');
  return {
    redisUrl,
    databaseUrl: redisUrl ? undefined : databaseUrl,
    namespace,
    lockDurationMs: integer(env, 'WORKER_LOCK_DURATION_MS', 30_000, 1000),
    stalledIntervalMs: integer(env, 'WORKER_STALLED_INTERVAL_MS', 30_000, 500),
  };
}
// ---- end durable queue ----

export class WorkerConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`Invalid configuration: ${variable}: ${message}`);
    this.name = 'WorkerConfigError';
  }
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new WorkerConfigError(name, `must be an integer from ${min} to ${max}`);
  return value;
}

export function loadWorkerConfig(env: NodeJS.ProcessEnv): WorkerServerConfig {
  const apiKey = env.WORKER_API_KEY ?? '';
  if (apiKey.length < 16) throw new WorkerConfigError('WORKER_API_KEY', 'is required (at least 16 characters)');
  return {
    apiKey,
    host: env.WORKER_HOST || '0.0.0.0',
    port: integer(env, 'WORKER_PORT', 8000, 0, 65535),
    concurrency: integer(env, 'WORKER_CONCURRENCY', 1, 1, 64),
    queueSize: integer(env, 'WORKER_QUEUE_SIZE', 16, 0, 10_000),
    resultTtlMs: integer(env, 'WORKER_RESULT_TTL_SECONDS', 1800, 1) * 1000,
    modelCacheDir: path.resolve(env.MODEL_CACHE_DIR || path.join(env.DATA_DIR || './data', 'models')),
    workDir: path.resolve(env.WORKER_WORK_DIR || tmpdir()),
    maxInputBytes: integer(env, 'WORKER_MAX_INPUT_BYTES', 500 * 1024 * 1024, 1),
    transferTimeoutMs: integer(env, 'WORKER_TRANSFER_TIMEOUT_MS', 30_000, 100),
    durableQueue: durableQueueOf(env),
  };
}
