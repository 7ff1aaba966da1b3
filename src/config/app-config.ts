/*
 * Over 300 lines on purpose: this is the one schema of every environment variable (item 4 of issue 16
 * makes it the only reader of process.env), each with its decorators and its comment; split by
 * concern it would spread one validated whole over files that must always change together.
 */
import { plainToInstance, Transform, Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsPositive, IsString, IsUrl, Max, Min, MinLength, validateSync } from 'class-validator';
import * as path from 'node:path';

const toBool = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' ? (['1', 'true', 'yes', 'on'].includes(value.toLowerCase()) ? true : ['0', 'false', 'no', 'off', ''].includes(value.toLowerCase()) ? false : value) : value;
const toNumberList = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' ? value.split(',').map((item) => item.trim()).filter(Boolean).map(Number) : value;
const toList = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' ? value.split(',').map((item) => item.trim()).filter(Boolean) : value;

/**
 * Every environment variable the server reads, with its default. The names in UPPER_CASE are the
 * variables; README's configuration table is generated from the same list (see `describeConfig`).
 */
export class EnvironmentVariables {
  @Type(() => Number) @IsInt() @Min(0) @Max(65535)
  PORT = 3000;

  @IsString()
  HOST = '0.0.0.0';

  @IsOptional() @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  PUBLIC_BASE_URL?: string;

  @IsOptional() @IsString() @MinLength(1)
  DATABASE_URL?: string;

  @IsString()
  DATA_DIR = './data';

  @Type(() => Number) @IsInt() @Min(1) @Max(65535)
  EMBEDDED_PG_PORT = 54329;

  @IsOptional() @IsString()
  REDIS_URL?: string;

  /** Redis key prefix (Redis backend) or Postgres schema (Postgres backend) of the queues */
  @IsString() @MinLength(1)
  QUEUE_NAMESPACE = 'backdrop_queue';

  @IsOptional() @IsString() @MinLength(16)
  ADMIN_TOKEN?: string;

  @IsIn(['api', 'worker', 'all'])
  ROLE: 'api' | 'worker' | 'all' = 'all';

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  @Type(() => Number) @IsInt() @IsPositive()
  MAX_UPLOAD_BYTES = 500 * 1024 * 1024;

  @IsString()
  JSON_BODY_LIMIT = '1mb';

  @Type(() => Number) @IsInt() @IsPositive()
  SIGNED_URL_TTL_SECONDS = 24 * 3600;

  @IsOptional() @IsString() @MinLength(32)
  URL_SIGNING_SECRET?: string;

  @Transform(toBool) @IsBoolean()
  ALLOW_KEYLESS_DOWNLOAD = false;

  @Type(() => Number) @IsNumber() @IsPositive()
  MAX_VIDEO_SECONDS = 600;

  @Type(() => Number) @IsInt() @Min(1) @Max(64)
  WORKER_CONCURRENCY = 1;

  /** widest video accepted (display width, pixels); checked from the probe before any frame is decoded */
  @Type(() => Number) @IsInt() @Min(16) @Max(16384)
  MAX_VIDEO_WIDTH = 4096;

  /** tallest video accepted (display height, pixels) */
  @Type(() => Number) @IsInt() @Min(16) @Max(16384)
  MAX_VIDEO_HEIGHT = 4096;

  /** most pixels in one video frame (default 4096x2304: 4K either way up) */
  @Type(() => Number) @IsInt() @Min(256)
  MAX_VIDEO_PIXELS = 4096 * 2304;

  /** most pixels in a background image, read from its header before it is decoded */
  @Type(() => Number) @IsInt() @Min(256)
  MAX_IMAGE_PIXELS = 40_000_000;

  /** how long an idle keep-alive connection stays open: longer than proxies and load balancers keep theirs (60 s) */
  @Type(() => Number) @IsInt() @Min(1000)
  HTTP_KEEP_ALIVE_TIMEOUT_MS = 65_000;

  /** the request's headers must arrive within this; above the keep-alive timeout */
  @Type(() => Number) @IsInt() @Min(1000)
  HTTP_HEADERS_TIMEOUT_MS = 66_000;

  /** the whole request, body included, must arrive within this: 30 min lets 500 MB come at 2.3 Mbit/s */
  @Type(() => Number) @IsInt() @Min(1000)
  HTTP_REQUEST_TIMEOUT_MS = 1_800_000;

  /** where jobs are processed: `local` (this machine's engine), `remote` (RunPod-protocol workers at WORKER_URLS) or `none` */
  @IsIn(['local', 'remote', 'none'])
  WORKER_GATEWAY: 'local' | 'remote' | 'none' = 'local';

  /** remote workers' base URLs, comma-separated (WORKER_GATEWAY=remote); their hosts are trusted by the outbound client */
  @Transform(toList) @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] }, { each: true })
  WORKER_URLS: string[] = [];

  /** sent as `authorization` to remote workers; required when WORKER_GATEWAY=remote */
  @IsOptional() @IsString() @MinLength(16)
  WORKER_API_KEY?: string;

  /** how often a remote job's status is polled */
  @Type(() => Number) @IsInt() @Min(50) @Max(60000)
  WORKER_POLL_INTERVAL_MS = 2000;

  /** timeout of each call to a remote worker (connect, headers, body) */
  @Type(() => Number) @IsInt() @Min(100) @Max(120000)
  WORKER_REQUEST_TIMEOUT_MS = 10000;

  /** a remote job running longer is canceled on its worker and fails with worker_timeout */
  @Type(() => Number) @IsInt() @Min(1)
  WORKER_JOB_TIMEOUT_SECONDS = 3600;

  /** attempts of each call to a remote worker on 429, 5xx or network errors */
  @Type(() => Number) @IsInt() @Min(1) @Max(10)
  WORKER_RETRY_ATTEMPTS = 3;

  /** first delay between those attempts; doubled each time (a longer Retry-After wins) */
  @Type(() => Number) @IsInt() @Min(10) @Max(60000)
  WORKER_RETRY_BASE_DELAY_MS = 500;

  /** a remote worker whose /health or /run failed is tried last for this long */
  @Type(() => Number) @IsInt() @Min(1)
  WORKER_HEALTH_COOLDOWN_SECONDS = 30;

  @IsOptional() @IsString()
  MODEL_CACHE_DIR?: string;

  @Transform(toList) @IsString({ each: true })
  OUTBOUND_ALLOW_LIST: string[] = [];

  @Type(() => Number) @IsInt() @Min(0)
  DEV_KEY_CREDITS = 10000;

  /** delays between webhook attempts, seconds; attempts = 1 + their number */
  @Transform(toNumberList) @IsNumber({}, { each: true }) @Min(0, { each: true })
  WEBHOOK_RETRY_SCHEDULE_SECONDS: number[] = [5, 30, 120, 600, 3600];

  @Type(() => Number) @IsInt() @Min(100) @Max(60000)
  WEBHOOK_TIMEOUT_MS = 10000;

  @Type(() => Number) @IsInt() @Min(100)
  WEBHOOK_SWEEP_INTERVAL_MS = 15000;

  @Type(() => Number) @IsInt() @Min(10) @Max(60000)
  USAGE_FLUSH_INTERVAL_MS = 1000;

  /** how often committed-but-unqueued jobs are handed to the queue (and how old they must be) */
  @Type(() => Number) @IsInt() @Min(100)
  JOB_RELAY_INTERVAL_MS = 5000;

  /** on SIGTERM, how long running jobs may finish before they are handed back to the queue */
  @Type(() => Number) @IsInt() @Min(0)
  WORKER_SHUTDOWN_GRACE_MS = 30000;

  /**
   * a job whose processed video lasts longer than this is cut into chunks of about this length
   * (equal lengths), processed in parallel by any workers and joined (0: never cut)
   */
  @Type(() => Number) @IsNumber() @Min(0)
  CHUNK_SECONDS = 15;

  /** seconds decoded before each chunk to warm the model's temporal state, then discarded */
  @Type(() => Number) @IsNumber() @Min(0) @Max(10)
  CHUNK_PREROLL_SECONDS = 1;

  /** attempts of each chunk (a failed chunk is retried alone) */
  @Type(() => Number) @IsInt() @Min(1) @Max(10)
  CHUNK_ATTEMPTS = 3;

  /** the module the engine's children load models from (a benchmark's fake engine); absent: the real models */
  @IsOptional() @IsString()
  ENGINE_MODEL_MODULE?: string;

  /** BullMQ: how often active jobs of dead workers are detected and re-run */
  @Type(() => Number) @IsInt() @Min(500)
  QUEUE_STALLED_INTERVAL_MS = 30000;

  /** uploads and outputs older than this many hours are deleted (0: keep forever) */
  @Type(() => Number) @IsNumber() @Min(0)
  RETENTION_HOURS = 168;

  @Type(() => Number) @IsInt() @Min(1000)
  RETENTION_INTERVAL_MS = 3600000;

  @Transform(toBool) @IsBoolean()
  METRICS_ENABLED = true;

  @Type(() => Number) @IsNumber() @Min(0)
  CREDITS_PER_MINUTE_ORIGINAL = 60;
  @Type(() => Number) @IsNumber() @Min(0)
  CREDITS_PER_MINUTE_LIGHT = 45;
  @Type(() => Number) @IsNumber() @Min(0)
  CREDITS_PER_MINUTE_PRO = 180;
  @Type(() => Number) @IsNumber() @Min(0)
  CREDITS_PER_MINUTE_HUMAN = 45;
  @Type(() => Number) @IsNumber() @Min(0)
  PRICE_PER_SECOND_CENTS = 1;
  /** JSON list of {name, credits, price_cents, currency} */
  @IsString()
  PRICING_PACKAGES = JSON.stringify([
    { name: 'Starter', credits: 1000, price_cents: 900, currency: 'usd' },
    { name: 'Pro', credits: 6000, price_cents: 4900, currency: 'usd' },
    { name: 'Business', credits: 30000, price_cents: 19900, currency: 'usd' },
  ]);

  /** requests per API key per window on /v1/* (admin routes excluded) */
  @Type(() => Number) @IsInt() @Min(1)
  RATE_LIMIT_PER_MINUTE = 120;

  /** job starts per API key per window (POST /v1/jobs with auto_start, POST /v1/jobs/{id}/start, POST /api/process) */
  @Type(() => Number) @IsInt() @Min(1)
  RATE_LIMIT_STARTS_PER_MINUTE = 10;

  /** length of the rate-limit window in seconds (the limits above are per window) */
  @Type(() => Number) @IsInt() @Min(1) @Max(3600)
  RATE_LIMIT_WINDOW_SECONDS = 60;

  /** how long an Idempotency-Key and its first response are kept */
  @Type(() => Number) @IsInt() @Min(60)
  IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

  /** origins allowed by CORS, comma-separated; `*` for any; empty: no CORS headers */
  @Transform(toList) @IsString({ each: true })
  CORS_ORIGINS: string[] = [];

  /** where uploads and outputs live: `local` (DATA_DIR/storage, served by signed /files URLs) or `s3` (an S3-compatible bucket) */
  @IsIn(['local', 's3'])
  STORAGE: 'local' | 's3' = 'local';

  /** S3-compatible endpoint (MinIO, R2, ...); unset for AWS S3 */
  @IsOptional() @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  S3_ENDPOINT?: string;

  /** the bucket; required when STORAGE=s3 */
  @IsOptional() @IsString() @MinLength(3)
  S3_BUCKET?: string;

  @IsString() @MinLength(1)
  S3_REGION = 'us-east-1';

  /** with S3_SECRET_ACCESS_KEY; both unset: the AWS SDK's default credential chain */
  @IsOptional() @IsString() @MinLength(1)
  S3_ACCESS_KEY_ID?: string;

  @IsOptional() @IsString() @MinLength(1)
  S3_SECRET_ACCESS_KEY?: string;

  /** path-style URLs (endpoint/bucket/key); default: true when S3_ENDPOINT is set */
  @IsOptional() @Transform(toBool) @IsBoolean()
  S3_FORCE_PATH_STYLE?: boolean;
}

export class ConfigError extends Error {
  constructor(readonly variable: string, message: string) {
    super(`Invalid configuration: ${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

export interface PricingPackage {
  name: string;
  credits: number;
  price_cents: number;
  currency: string;
}

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
  mediaLimits: { maxVideoWidth: number; maxVideoHeight: number; maxVideoPixels: number; maxImagePixels: number };
  http: { keepAliveTimeoutMs: number; headersTimeoutMs: number; requestTimeoutMs: number };
  /** long jobs in chunks: chunkSeconds 0 never cuts */
  chunking: { chunkSeconds: number; prerollSeconds: number; attempts: number };
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

function storageConfigOf(env: EnvironmentVariables, dataDir: string): StorageConfig {
  if (env.STORAGE === 'local') return { kind: 'local', root: path.join(dataDir, 'storage') };
  if (!env.S3_BUCKET) throw new ConfigError('S3_BUCKET', 'is required when STORAGE=s3');
  if (env.S3_ACCESS_KEY_ID && !env.S3_SECRET_ACCESS_KEY) throw new ConfigError('S3_SECRET_ACCESS_KEY', 'is required when S3_ACCESS_KEY_ID is set');
  if (env.S3_SECRET_ACCESS_KEY && !env.S3_ACCESS_KEY_ID) throw new ConfigError('S3_ACCESS_KEY_ID', 'is required when S3_SECRET_ACCESS_KEY is set');
  if (env.SIGNED_URL_TTL_SECONDS > S3_MAX_PRESIGN_SECONDS) throw new ConfigError('SIGNED_URL_TTL_SECONDS', `is at most ${S3_MAX_PRESIGN_SECONDS} with STORAGE=s3`);
  return {
    kind: 's3',
    bucket: env.S3_BUCKET,
    region: env.S3_REGION,
    endpoint: env.S3_ENDPOINT,
    forcePathStyle: env.S3_FORCE_PATH_STYLE ?? Boolean(env.S3_ENDPOINT),
    credentials: env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY ? { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY } : undefined,
  };
}

function parsePackages(raw: string): PricingPackage[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError('PRICING_PACKAGES', 'must be a JSON array');
  }
  const valid =
    Array.isArray(parsed) &&
    parsed.every(
      (p: Record<string, unknown>) =>
        typeof p?.name === 'string' && Number.isFinite(p.credits) && Number.isFinite(p.price_cents) && typeof p.currency === 'string',
    );
  if (!valid) throw new ConfigError('PRICING_PACKAGES', 'each entry needs name, credits, price_cents, currency');
  return parsed as PricingPackage[];
}

/** Node refuses a headers timeout above the request timeout; one below the keep-alive drops reused connections. */
function httpTimeoutsOf(env: EnvironmentVariables): AppConfig['http'] {
  if (env.HTTP_HEADERS_TIMEOUT_MS <= env.HTTP_KEEP_ALIVE_TIMEOUT_MS) throw new ConfigError('HTTP_HEADERS_TIMEOUT_MS', 'must be greater than HTTP_KEEP_ALIVE_TIMEOUT_MS');
  if (env.HTTP_REQUEST_TIMEOUT_MS < env.HTTP_HEADERS_TIMEOUT_MS) throw new ConfigError('HTTP_REQUEST_TIMEOUT_MS', 'must be at least HTTP_HEADERS_TIMEOUT_MS');
  return { keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS, headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS, requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS };
}

function checkRemoteWorkers(env: EnvironmentVariables): void {
  if (env.WORKER_GATEWAY !== 'remote') return;
  if (env.WORKER_URLS.length === 0) throw new ConfigError('WORKER_URLS', 'is required when WORKER_GATEWAY=remote');
  if (!env.WORKER_API_KEY) throw new ConfigError('WORKER_API_KEY', 'is required when WORKER_GATEWAY=remote');
}

/** Validates the environment; throws ConfigError naming the first bad variable. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): AppConfig {
  const known = Object.keys(new EnvironmentVariables());
  const raw: Record<string, string> = {};
  for (const key of [...known, 'PUBLIC_BASE_URL', 'DATABASE_URL', 'REDIS_URL', 'ADMIN_TOKEN', 'URL_SIGNING_SECRET', 'MODEL_CACHE_DIR', 'S3_ENDPOINT', 'S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_FORCE_PATH_STYLE', 'WORKER_API_KEY']) {
    const value = source[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const env = plainToInstance(EnvironmentVariables, raw, { exposeDefaultValues: true });
  const errors = validateSync(env, { whitelist: false, forbidUnknownValues: false });
  if (errors.length > 0) {
    const first = errors[0];
    throw new ConfigError(first.property, Object.values(first.constraints ?? { invalid: 'is invalid' }).join('; '));
  }
  checkRemoteWorkers(env);
  if (env.DATABASE_URL && !env.ADMIN_TOKEN) throw new ConfigError('ADMIN_TOKEN', 'is required when DATABASE_URL is set (it is generated only in embedded mode)');
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
    pricingPackages: parsePackages(env.PRICING_PACKAGES),
    creditsPerMinute: {
      original: env.CREDITS_PER_MINUTE_ORIGINAL,
      light: env.CREDITS_PER_MINUTE_LIGHT,
      pro: env.CREDITS_PER_MINUTE_PRO,
      human: env.CREDITS_PER_MINUTE_HUMAN,
    },
    storage: storageConfigOf(env, dataDir),
    mediaLimits: { maxVideoWidth: env.MAX_VIDEO_WIDTH, maxVideoHeight: env.MAX_VIDEO_HEIGHT, maxVideoPixels: env.MAX_VIDEO_PIXELS, maxImagePixels: env.MAX_IMAGE_PIXELS },
    http: httpTimeoutsOf(env),
    chunking: { chunkSeconds: env.CHUNK_SECONDS, prerollSeconds: env.CHUNK_PREROLL_SECONDS, attempts: env.CHUNK_ATTEMPTS },
  };
}

/** Nest injection token for AppConfig. */
export const APP_CONFIG = Symbol('APP_CONFIG');
