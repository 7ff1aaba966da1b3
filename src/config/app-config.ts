import { isIP } from 'node:net';
import * as path from 'node:path';
import type { MediaBinaries } from '../engine/media/binaries';
import { engineProcessEnv } from '../engine/runner/engine-environment';
import { ConfigCheck, ConfigError, ConfigProblem, readEnvironment } from './config-error';
import type { PricingPackage } from '../contract/api-types';
import { EnvironmentVariables } from './environment-variables';

export { ConfigError, EnvironmentVariables };
export type { ConfigProblem };

export type { PricingPackage };

/** The validated configuration the application reads; derived values resolved once here. */
export interface AppConfig {
  env: EnvironmentVariables;
  port: number;
  host: string;
  publicBaseUrl: string;
  dataDir: string;
  databaseUrl?: string;
  embeddedDatabase: boolean;
  redisUrl?: string;
  role: 'api' | 'worker' | 'all';
  maxUploadBytes: number;
  modelCacheDir: string;
  pricingPackages: PricingPackage[];
  creditsPerMinute: Record<'original' | 'light' | 'pro' | 'human', number>;
  storage: StorageConfig;
  /** what the input gate accepts (the engine's MediaLimits) */
  mediaLimits: { maxVideoWidth: number; maxVideoHeight: number; maxVideoPixels: number; maxFrameRate: number; maxImagePixels: number };
  http: { keepAliveTimeoutMs: number; headersTimeoutMs: number; requestTimeoutMs: number; shutdownGraceMs: number };
  /** long jobs in chunks: chunkSeconds 0 never cuts */
  chunking: { chunkSeconds: number; prerollSeconds: number; attempts: number };
  /** the ffmpeg and ffprobe builds (FFMPEG_PATH, FFPROBE_PATH) */
  mediaBinaries: MediaBinaries;
  /** the environment the engine's processes start with (engine-environment.ts) */
  engineProcessEnv: NodeJS.ProcessEnv;
  /** Express's `trust proxy` (TRUST_PROXY): false trusts none */
  trustProxy: boolean | number | string;
}

function trustProxyOf(value: string | undefined): boolean | number | string {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  return /^\d+$/.test(value) ? Number(value) : value;
}

export interface S3StorageConfig {
  kind: 's3';
  bucket: string;
  region: string;
  endpoint?: string;
  forcePathStyle: boolean;
  /** absent: the AWS SDK's default credential chain */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

export type StorageConfig = { kind: 'local'; root: string } | S3StorageConfig;

/** SigV4 presigned URLs live at most a week. */
const S3_MAX_PRESIGN_SECONDS = 7 * 24 * 3600;
/** a remote worker's signed URLs outlive its job's timeout by this much (queueing, upload, clock skew) */
export const REMOTE_URL_MARGIN_SECONDS = 15 * 60;

const problem = (variable: string, message: string): ConfigProblem => ({ variable, message });

function storageConfigOf(env: EnvironmentVariables, dataDir: string): StorageConfig {
  if (env.STORAGE === 'local' || !env.S3_BUCKET) return { kind: 'local', root: path.join(dataDir, 'storage') };
  return {
    kind: 's3',
    bucket: env.S3_BUCKET,
    region: env.S3_REGION,
    endpoint: env.S3_ENDPOINT,
    forcePathStyle: env.S3_FORCE_PATH_STYLE ?? Boolean(env.S3_ENDPOINT),
    credentials: env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY ? { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY } : undefined,
  };
}

function parsePackages(raw: string): PricingPackage[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const valid =
    Array.isArray(parsed) &&
    parsed.every(
      (p: Record<string, unknown>) =>
        typeof p?.name === 'string' && Number.isFinite(p.credits) && Number.isFinite(p.price_cents) && typeof p.currency === 'string',
    );
  return valid ? (parsed as PricingPackage[]) : undefined;
}

/**
 * The API's checks across variables. Node refuses a headers timeout above the request timeout, and
 * one below the keep-alive drops reused connections.
 */
const API_CHECKS: readonly ConfigCheck[] = [
  (env) => (env.STORAGE === 's3' && !env.S3_BUCKET ? problem('S3_BUCKET', 'is required when STORAGE=s3') : undefined),
  (env) => (env.STORAGE === 's3' && env.S3_ACCESS_KEY_ID && !env.S3_SECRET_ACCESS_KEY ? problem('S3_SECRET_ACCESS_KEY', 'is required when S3_ACCESS_KEY_ID is set') : undefined),
  (env) => (env.STORAGE === 's3' && env.S3_SECRET_ACCESS_KEY && !env.S3_ACCESS_KEY_ID ? problem('S3_ACCESS_KEY_ID', 'is required when S3_SECRET_ACCESS_KEY is set') : undefined),
  (env) => (env.STORAGE === 's3' && env.SIGNED_URL_TTL_SECONDS > S3_MAX_PRESIGN_SECONDS ? problem('SIGNED_URL_TTL_SECONDS', `is at most ${S3_MAX_PRESIGN_SECONDS} with STORAGE=s3`) : undefined),
  // a remote worker's input and output URLs are signed for its job's timeout and a margin: past a week S3 refused every one
  (env) =>
    env.STORAGE === 's3' && env.WORKER_GATEWAY === 'remote' && env.WORKER_JOB_TIMEOUT_SECONDS + REMOTE_URL_MARGIN_SECONDS > S3_MAX_PRESIGN_SECONDS
      ? problem('WORKER_JOB_TIMEOUT_SECONDS', `is at most ${S3_MAX_PRESIGN_SECONDS - REMOTE_URL_MARGIN_SECONDS} with STORAGE=s3 and WORKER_GATEWAY=remote (S3 signs URLs for a week at most)`)
      : undefined,
  (env) => (env.PUBLIC_BASE_URL && /[?#]/.test(env.PUBLIC_BASE_URL) ? problem('PUBLIC_BASE_URL', 'is a base URL without a query or fragment (https://backdrop.example.com or https://example.com/backdrop)') : undefined),
  (env) => (env.HTTP_HEADERS_TIMEOUT_MS <= env.HTTP_KEEP_ALIVE_TIMEOUT_MS ? problem('HTTP_HEADERS_TIMEOUT_MS', 'must be greater than HTTP_KEEP_ALIVE_TIMEOUT_MS') : undefined),
  (env) => (env.HTTP_REQUEST_TIMEOUT_MS < env.HTTP_HEADERS_TIMEOUT_MS ? problem('HTTP_REQUEST_TIMEOUT_MS', 'must be at least HTTP_HEADERS_TIMEOUT_MS') : undefined),
  (env) => (env.WORKER_GATEWAY === 'remote' && env.WORKER_URLS.length === 0 ? problem('WORKER_URLS', 'is required when WORKER_GATEWAY=remote') : undefined),
  (env) => (env.WORKER_GATEWAY === 'remote' && !env.WORKER_API_KEY ? problem('WORKER_API_KEY', 'is required when WORKER_GATEWAY=remote') : undefined),
  (env) => (env.DATABASE_URL && !env.ADMIN_TOKEN ? problem('ADMIN_TOKEN', 'is required when DATABASE_URL is set (it is generated only in embedded mode)') : undefined),
  (env) => (parsePackages(env.PRICING_PACKAGES) ? undefined : problem('PRICING_PACKAGES', 'must be a JSON array; each entry needs name, credits, price_cents, currency')),
  // refused here, these failed later with a message naming none of them ("Invalid URL", "getaddrinfo ENOTFOUND base")
  (env) => (env.DATABASE_URL && !isUrlOf(env.DATABASE_URL, ['postgres:', 'postgresql:']) ? problem('DATABASE_URL', 'must be a postgres:// URL (postgres://user:password@host:5432/database)') : undefined),
  (env) => (env.REDIS_URL && !isRedisUrl(env.REDIS_URL) ? problem('REDIS_URL', 'must be a redis:// or rediss:// URL, with a database number if any (redis://host:6379/0)') : undefined),
  (env) => (!env.REDIS_URL && !POSTGRES_SCHEMA_NAME.test(env.QUEUE_NAMESPACE) ? problem('QUEUE_NAMESPACE', 'names a Postgres schema without REDIS_URL: letters, digits and _, not starting with a digit, at most 63') : undefined),
  (env) => {
    const bad = env.OUTBOUND_ALLOW_LIST.find((entry) => !isAllowListEntry(entry));
    return bad === undefined ? undefined : problem('OUTBOUND_ALLOW_LIST', `has ${JSON.stringify(bad)}: each entry is an address, a CIDR (10.0.0.0/8) or a host name`);
  },
  (env) => (env.CHUNK_SECONDS > 0 && env.CHUNK_SECONDS < MIN_CHUNK_SECONDS ? problem('CHUNK_SECONDS', `is 0 (long jobs are never cut) or at least ${MIN_CHUNK_SECONDS}`) : undefined),
  // each chunk's pre-roll is decoded and matted again: longer than the chunk, it more than doubled the work
  (env) => (env.CHUNK_SECONDS >= MIN_CHUNK_SECONDS && env.CHUNK_PREROLL_SECONDS > env.CHUNK_SECONDS ? problem('CHUNK_PREROLL_SECONDS', 'is at most CHUNK_SECONDS') : undefined),
];

/** the queues' Postgres schema: an unquoted identifier */
export const POSTGRES_SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
/** below it, a 600 s video would be cut into thousands of chunks */
const MIN_CHUNK_SECONDS = 1;

export function isUrlOf(value: string, protocols: readonly string[]): boolean {
  try {
    return protocols.includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

export function isRedisUrl(value: string): boolean {
  return isUrlOf(value, ['redis:', 'rediss:']) && /^\/?\d*$/.test(new URL(value).pathname);
}

function isAllowListEntry(entry: string): boolean {
  const [net, prefix, ...rest] = entry.split('/');
  const family = isIP(net);
  if (prefix === undefined) return family !== 0 || /^[A-Za-z0-9.-]+$/.test(entry);
  const bits = Number(prefix);
  return rest.length === 0 && family !== 0 && /^\d+$/.test(prefix) && bits <= (family === 4 ? 32 : 128);
}

/** FFMPEG_PATH / FFPROBE_PATH; unset: the bundled npm builds. */
export const mediaBinariesOf = (env: EnvironmentVariables): MediaBinaries => ({ ffmpeg: env.FFMPEG_PATH, ffprobe: env.FFPROBE_PATH });

/** Validates the environment of the API and its workers; throws one ConfigError naming every bad variable. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): AppConfig {
  const env = readEnvironment(source, API_CHECKS);
  const dataDir = path.resolve(env.DATA_DIR);
  return {
    env,
    port: env.PORT,
    host: env.HOST,
    publicBaseUrl: (env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ''),
    dataDir,
    databaseUrl: env.DATABASE_URL,
    embeddedDatabase: !env.DATABASE_URL,
    redisUrl: env.REDIS_URL,
    role: env.ROLE,
    maxUploadBytes: env.MAX_UPLOAD_BYTES,
    modelCacheDir: path.resolve(env.MODEL_CACHE_DIR ?? path.join(dataDir, 'models')),
    pricingPackages: parsePackages(env.PRICING_PACKAGES) ?? [],
    creditsPerMinute: {
      original: env.CREDITS_PER_MINUTE_ORIGINAL,
      light: env.CREDITS_PER_MINUTE_LIGHT,
      pro: env.CREDITS_PER_MINUTE_PRO,
      human: env.CREDITS_PER_MINUTE_HUMAN,
    },
    storage: storageConfigOf(env, dataDir),
    mediaLimits: { maxVideoWidth: env.MAX_VIDEO_WIDTH, maxVideoHeight: env.MAX_VIDEO_HEIGHT, maxVideoPixels: env.MAX_VIDEO_PIXELS, maxFrameRate: env.MAX_VIDEO_FPS, maxImagePixels: env.MAX_IMAGE_PIXELS },
    http: { keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS, headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS, requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS, shutdownGraceMs: env.HTTP_SHUTDOWN_GRACE_MS },
    chunking: { chunkSeconds: env.CHUNK_SECONDS, prerollSeconds: env.CHUNK_PREROLL_SECONDS, attempts: env.CHUNK_ATTEMPTS },
    mediaBinaries: mediaBinariesOf(env),
    engineProcessEnv: engineProcessEnv(source),
    trustProxy: trustProxyOf(env.TRUST_PROXY),
  };
}

/** Nest injection token for AppConfig. */
export const APP_CONFIG = Symbol('APP_CONFIG');

/**
 * The tokens and keys the configuration holds, for the logs to leave out wherever they appear
 * (redactSecrets). Not the services' passwords: a short one (docker-compose's `backdrop`) took
 * ordinary words out of every line and showed where it stood; redactSecrets drops a URL's password
 * where the URL is written.
 */
export function secretsInConfig(env: EnvironmentVariables): string[] {
  return [env.ADMIN_TOKEN, env.WORKER_API_KEY, env.S3_SECRET_ACCESS_KEY, env.METRICS_TOKEN, ...env.URL_SIGNING_SECRET_PREVIOUS].filter((secret): secret is string => Boolean(secret));
}
