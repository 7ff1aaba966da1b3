import { createHash } from 'node:crypto';
import { createPostgresBackend, QueueOptions, setDefaultBackendFactory } from 'bullmq';
import { AppConfig } from '../../config/app-config';
import { listenForErrors } from '../database/pooled-connection-errors';

export const JOBS_QUEUE = 'jobs';
export const WEBHOOKS_QUEUE = 'webhooks';
export const MAINTENANCE_QUEUE = 'maintenance';
/** the FlowProducer that adds long jobs' chunks and their join to the jobs queue */
export const JOBS_FLOW_PRODUCER = 'jobs-flow';

export type QueueBackendName = 'redis' | 'postgres';

/**
 * The name the jobs queue's workers go by (BullMQ names their connection `<queue>:w:<name>`): the
 * deployment's QUEUE_NAMESPACE, hashed to stay short. On BullMQ's Postgres backend the connection's
 * application_name is all that tells the workers of one namespace from another's in the same
 * database, which /health counts; Postgres keeps 63 bytes of it.
 */
export function jobsWorkerName(namespace: string): string {
  return `ns-${createHash('sha256').update(namespace).digest('hex').slice(0, 16)}`;
}

export function queueBackendOf(config: AppConfig): QueueBackendName {
  return config.redisUrl ? 'redis' : 'postgres';
}

/** ioredis options for BullMQ from a redis:// or rediss:// URL (the API's queues and the worker server's). */
export function redisConnection(redisUrl: string) {
  const url = new URL(redisUrl);
  return {
    host: url.hostname,
    port: Number(url.port || 6379),
    username: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0,
    tls: url.protocol === 'rediss:' ? {} : undefined,
    // Workers must keep retrying Redis forever (BullMQ's production advice); producers fail fast.
    maxRetriesPerRequest: null,
  };
}

/**
 * BullMQ options for a backend: Redis when `redisUrl` is set, otherwise BullMQ's own Postgres
 * backend in the schema `namespace` of that database. Selecting Postgres sets BullMQ's process-wide
 * default backend, because @nestjs/bullmq constructs its queues and workers itself.
 */
export function bullConnectionOptions(backend: { redisUrl?: string; databaseUrl?: string; namespace: string }): QueueOptions {
  if (backend.redisUrl) {
    setDefaultBackendFactory(undefined);
    return { connection: redisConnection(backend.redisUrl), prefix: backend.namespace } as QueueOptions;
  }
  setDefaultBackendFactory(createPostgresBackend);
  return { connection: { connectionString: backend.databaseUrl, schema: backend.namespace, migrate: true, max: 5, onConnect: listenForErrors } } as unknown as QueueOptions;
}

/** The API's queues: REDIS_URL, or the application database; QUEUE_NAMESPACE either way. */
export function bullRootOptions(config: AppConfig, databaseUrl: string): QueueOptions {
  return bullConnectionOptions({ redisUrl: config.redisUrl, databaseUrl, namespace: config.env.QUEUE_NAMESPACE });
}
