import 'reflect-metadata';
import { Transform, Type } from 'class-transformer';
import { getMetadataStorage, IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsPositive, IsString, IsUrl, Matches, Max, Min, MinLength } from 'class-validator';

/**
 * Node's timers hold at most 2^31 - 1 ms (24.8 days); a longer delay fires after 1 ms, with only a
 * warning: an interval of 3e9 ms ran its sweep a thousand times a second, a grace that long cut
 * every connection at once. Every setting that becomes a timer stays within it.
 */
const MAX_TIMER_MS = 2_147_483_647;
const MAX_TIMER_SECONDS = Math.floor(MAX_TIMER_MS / 1000);
/** a hundred years: more made the retention's cut-off an invalid date */
const MAX_RETENTION_HOURS = 100 * 365 * 24;

const toBool = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' ? (['1', 'true', 'yes', 'on'].includes(value.toLowerCase()) ? true : ['0', 'false', 'no', 'off', ''].includes(value.toLowerCase()) ? false : value) : value;
const toNumberList = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' ? value.split(',').map((item) => item.trim()).filter(Boolean).map(Number) : value;
const toList = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' ? value.split(',').map((item) => item.trim()).filter(Boolean) : value;

/**
 * Every environment variable of the API, its workers and the worker server, with its default: the
 * one schema (docs/configuration.md is checked against it by test/unit/config/configuration-doc.spec.ts).
 * Over 300 lines on purpose: one declaration per variable, all in one class, is the point of it.
 */
export class EnvironmentVariables {
  @Type(() => Number) @IsInt() @Min(0) @Max(65535)
  PORT = 3000;

  @IsString()
  HOST = '0.0.0.0';

  /** no user or password: the base URL is shown in every signed URL and log line */
  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'], disallow_auth: true })
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

  /** the largest input: an upload, a fetched video_url or image_url, and a remote worker's download */
  @Type(() => Number) @IsInt() @IsPositive() @Max(Number.MAX_SAFE_INTEGER)
  MAX_UPLOAD_BYTES = 500 * 1024 * 1024;

  /** a video_url or background image_url is fetched whole within this, or the job fails input_unreachable */
  @Type(() => Number) @IsInt() @Min(1) @Max(MAX_TIMER_SECONDS)
  INPUT_FETCH_TIMEOUT_SECONDS = 600;

  /** bytes, kilobytes or megabytes (`2048b`, `500kb`, `2mb`): the body parser read `1MiB` as 1 byte, and every JSON request was a 413 */
  @Matches(/^[1-9]\d*(b|kb|mb)$/i, { message: 'JSON_BODY_LIMIT must be a whole number of b, kb or mb, such as 1mb' })
  JSON_BODY_LIMIT = '1mb';

  /** at most a year: the signature's expiry is a 12-digit Unix time, and a URL past it was refused as forged */
  @Type(() => Number) @IsInt() @IsPositive() @Max(365 * 24 * 3600)
  SIGNED_URL_TTL_SECONDS = 24 * 3600;

  @IsOptional() @IsString() @MinLength(32)
  URL_SIGNING_SECRET?: string;

  /** secrets URLs were signed with before: still accepted, never used to sign (a rotation's grace) */
  @Transform(toList) @IsString({ each: true }) @MinLength(32, { each: true })
  URL_SIGNING_SECRET_PREVIOUS: string[] = [];

  @Transform(toBool) @IsBoolean()
  ALLOW_KEYLESS_DOWNLOAD = false;

  @Type(() => Number) @IsNumber() @IsPositive()
  MAX_VIDEO_SECONDS = 600;

  @Type(() => Number) @IsInt() @Min(1) @Max(64)
  WORKER_CONCURRENCY = 1;

  /** uploads of one key streaming into one API process at once; another is answered 429 */
  @Type(() => Number) @IsInt() @Min(1)
  MAX_UPLOADS_IN_FLIGHT_PER_KEY = 4;

  /** jobs of one key processing at once before its next job waits for another key's (only while one waits) */
  @Type(() => Number) @IsInt() @Min(1)
  FAIR_SHARE_JOBS_PER_KEY = 2;

  /** widest video accepted (display width, pixels); checked from the probe before any frame is decoded */
  @Type(() => Number) @IsInt() @Min(16) @Max(16384)
  MAX_VIDEO_WIDTH = 4096;

  /** tallest video accepted (display height, pixels) */
  @Type(() => Number) @IsInt() @Min(16) @Max(16384)
  MAX_VIDEO_HEIGHT = 4096;

  /** most pixels in one video frame (default 4096x2304: 4K either way up) */
  @Type(() => Number) @IsInt() @Min(256)
  MAX_VIDEO_PIXELS = 4096 * 2304;

  /** most frames a second a video may have (a phone's slow motion is 240): the work grows with the rate, the price with the seconds */
  @Type(() => Number) @IsNumber() @Min(1)
  MAX_VIDEO_FPS = 240;

  /** most pixels in a background image, read from its header before it is decoded */
  @Type(() => Number) @IsInt() @Min(256)
  MAX_IMAGE_PIXELS = 40_000_000;

  /** how long an idle keep-alive connection stays open: longer than proxies and load balancers keep theirs (60 s) */
  @Type(() => Number) @IsInt() @Min(1000) @Max(MAX_TIMER_MS)
  HTTP_KEEP_ALIVE_TIMEOUT_MS = 65_000;

  /** the request's headers must arrive within this; above the keep-alive timeout */
  @Type(() => Number) @IsInt() @Min(1000) @Max(MAX_TIMER_MS)
  HTTP_HEADERS_TIMEOUT_MS = 66_000;

  /** the whole request, body included, must arrive within this: 30 min lets 500 MB come at 2.3 Mbit/s */
  @Type(() => Number) @IsInt() @Min(1000) @Max(MAX_TIMER_MS)
  HTTP_REQUEST_TIMEOUT_MS = 1_800_000;

  /** a body read into memory (JSON, a form) must arrive within this; uploads are held to the request timeout */
  @Type(() => Number) @IsInt() @Min(1000) @Max(MAX_TIMER_MS)
  HTTP_BODY_TIMEOUT_MS = 60_000;

  /** on shutdown, how long requests in flight may finish before their connections are cut (a stalled client must not hold a shutdown) */
  @Type(() => Number) @IsInt() @Min(0) @Max(MAX_TIMER_MS)
  HTTP_SHUTDOWN_GRACE_MS = 10_000;

  /** where jobs are processed: `local` (this machine's engine), `remote` (RunPod-protocol workers at WORKER_URLS) or `none` */
  @IsIn(['local', 'remote', 'none'])
  WORKER_GATEWAY: 'local' | 'remote' | 'none' = 'local';

  /**
   * remote workers' base URLs, comma-separated (WORKER_GATEWAY=remote); their hosts are trusted by the
   * outbound client. No user or password (WORKER_API_KEY authenticates): the outbound client refuses
   * such URLs, and they are named in log lines.
   */
  @Transform(toList) @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'], disallow_auth: true }, { each: true })
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
  @Type(() => Number) @IsInt() @Min(1) @Max(MAX_TIMER_SECONDS)
  WORKER_JOB_TIMEOUT_SECONDS = 3600;

  /** attempts of each call to a remote worker on 429, 5xx or network errors */
  @Type(() => Number) @IsInt() @Min(1) @Max(10)
  WORKER_RETRY_ATTEMPTS = 3;

  /** first delay between those attempts; doubled each time (a longer Retry-After wins, up to 60 s) */
  @Type(() => Number) @IsInt() @Min(10) @Max(60000)
  WORKER_RETRY_BASE_DELAY_MS = 500;

  /** a remote worker whose /health or /run failed is tried last for this long */
  @Type(() => Number) @IsInt() @Min(1) @Max(MAX_TIMER_SECONDS)
  WORKER_HEALTH_COOLDOWN_SECONDS = 30;

  /** a remote worker that took a job may go unanswering this long (a restart: its durable queue keeps the job) before the job fails with worker_failed */
  @Type(() => Number) @IsInt() @Min(0) @Max(MAX_TIMER_SECONDS)
  WORKER_UNREACHABLE_GRACE_SECONDS = 120;

  /** a remote run that FAILED for a reason a new attempt may cure is retried on its worker (POST /retry) this many times */
  @Type(() => Number) @IsInt() @Min(0) @Max(10)
  WORKER_RUN_RETRIES = 1;

  /** the worker server's listen address (`npm run worker:serve`) */
  @IsString() @MinLength(1)
  WORKER_HOST = '0.0.0.0';

  /** the worker server's port */
  @Type(() => Number) @IsInt() @Min(0) @Max(65535)
  WORKER_PORT = 8000;

  /** the worker server: jobs that may wait beyond the running ones; more are refused with 429 */
  @Type(() => Number) @IsInt() @Min(0) @Max(10_000)
  WORKER_QUEUE_SIZE = 16;

  /** the worker server: how long a finished job's status stays readable, then 404 */
  @Type(() => Number) @IsInt() @Min(1) @Max(MAX_TIMER_SECONDS)
  WORKER_RESULT_TTL_SECONDS = 1800;

  /** the worker server: parent of each job's temporary directory (default: the OS temp dir) */
  @IsOptional() @IsString() @MinLength(1)
  WORKER_WORK_DIR?: string;

  /** the worker server: connect and idle timeout of input downloads, output uploads and webhooks */
  @Type(() => Number) @IsInt() @Min(100) @Max(MAX_TIMER_MS)
  WORKER_TRANSFER_TIMEOUT_MS = 30_000;

  /** the worker server keeps its jobs in BullMQ on this Redis (durable across restarts) */
  @IsOptional() @IsString() @MinLength(1)
  WORKER_REDIS_URL?: string;

  /** or in BullMQ's Postgres backend on this database (when WORKER_REDIS_URL is unset) */
  @IsOptional() @IsString() @MinLength(1)
  WORKER_DATABASE_URL?: string;

  /** the worker server's BullMQ prefix (Redis) or schema (Postgres); worker servers sharing it share the jobs */
  @IsString() @MinLength(1)
  WORKER_QUEUE_NAMESPACE = 'backdrop_worker';

  /** the worker server: a running job's lock, renewed every half of it; a job whose process died runs again once it lapses */
  @Type(() => Number) @IsInt() @Min(1000) @Max(MAX_TIMER_MS)
  WORKER_LOCK_DURATION_MS = 30_000;

  /** the worker server: how often jobs whose process died are looked for */
  @Type(() => Number) @IsInt() @Min(500) @Max(MAX_TIMER_MS)
  WORKER_STALLED_INTERVAL_MS = 30_000;

  @IsOptional() @IsString()
  MODEL_CACHE_DIR?: string;

  /** another ffmpeg build (default: the npm one) */
  @IsOptional() @IsString() @MinLength(1)
  FFMPEG_PATH?: string;

  /** another ffprobe build (default: the npm one) */
  @IsOptional() @IsString() @MinLength(1)
  FFPROBE_PATH?: string;

  @Transform(toList) @IsString({ each: true })
  OUTBOUND_ALLOW_LIST: string[] = [];

  @Type(() => Number) @IsInt() @Min(0)
  DEV_KEY_CREDITS = 10000;

  /** delays between webhook attempts, seconds; attempts = 1 + their number */
  @Transform(toNumberList) @IsNumber({}, { each: true }) @Min(0, { each: true })
  WEBHOOK_RETRY_SCHEDULE_SECONDS: number[] = [5, 30, 120, 600, 3600];

  @Type(() => Number) @IsInt() @Min(100) @Max(60000)
  WEBHOOK_TIMEOUT_MS = 10000;

  /** how long a receiver that left 3 deliveries in a row unanswered is not sent to, seconds (0: receivers never rest) */
  @Type(() => Number) @IsInt() @Min(0) @Max(3600)
  WEBHOOK_RECEIVER_REST_SECONDS = 60;

  /** how long a rotated webhook secret still signs deliveries beside the new one, seconds (0: not at all) */
  @Type(() => Number) @IsInt() @Min(0) @Max(30 * 86400)
  WEBHOOK_SECRET_OVERLAP_SECONDS = 86400;

  @Type(() => Number) @IsInt() @Min(100) @Max(MAX_TIMER_MS)
  WEBHOOK_SWEEP_INTERVAL_MS = 15000;

  @Type(() => Number) @IsInt() @Min(10) @Max(60000)
  USAGE_FLUSH_INTERVAL_MS = 1000;

  /** how often committed-but-unqueued jobs are handed to the queue (and how old they must be) */
  @Type(() => Number) @IsInt() @Min(100) @Max(MAX_TIMER_MS)
  JOB_RELAY_INTERVAL_MS = 5000;

  /** how often pending jobs the queue no longer holds (a Redis that lost its data) are queued again (and how long ago they must have been queued) */
  @Type(() => Number) @IsInt() @Min(100) @Max(MAX_TIMER_MS)
  JOB_REQUEUE_LOST_INTERVAL_MS = 60000;

  /** on SIGTERM, how long running jobs and chunks may finish before they are handed back to the queue (which spends none of their attempts) */
  @Type(() => Number) @IsInt() @Min(0) @Max(MAX_TIMER_MS)
  WORKER_SHUTDOWN_GRACE_MS = 30000;

  /** a job processing a longer video is cut into equal chunks of at most this length, run in parallel (0: never) */
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

  /** BullMQ, every queue: how often active work of dead workers is detected and re-run */
  @Type(() => Number) @IsInt() @Min(500) @Max(MAX_TIMER_MS)
  QUEUE_STALLED_INTERVAL_MS = 30000;

  /** uploads and outputs older than this many hours are deleted (0: keep forever) */
  @Type(() => Number) @IsNumber() @Min(0) @Max(MAX_RETENTION_HOURS)
  RETENTION_HOURS = 168;

  @Type(() => Number) @IsInt() @Min(1000) @Max(MAX_TIMER_MS)
  RETENTION_INTERVAL_MS = 3600000;

  @Transform(toBool) @IsBoolean()
  METRICS_ENABLED = true;

  /** when set, /metrics answers only a scrape that sends `Authorization: Bearer <token>` (the API's port is public) */
  @IsOptional() @IsString() @MinLength(16)
  METRICS_TOKEN?: string;

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
  @Type(() => Number) @IsInt() @Min(60) @Max(365 * 24 * 3600)
  IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

  /**
   * which proxies in front are trusted to say the client's address (X-Forwarded-For), as Express's
   * `trust proxy`: `true` (any), a number of hops, or addresses and CIDR ranges (and `loopback`,
   * `linklocal`, `uniquelocal`), comma-separated; unset: none, the socket's address is the client's
   */
  @IsOptional() @Matches(/^(true|false|\d+|(loopback|linklocal|uniquelocal|[0-9A-Fa-f.:]+(\/\d+)?)(\s*,\s*(loopback|linklocal|uniquelocal|[0-9A-Fa-f.:]+(\/\d+)?))*)$/, { message: 'is true, a number of hops, or addresses and CIDR ranges, comma-separated' })
  TRUST_PROXY?: string;

  /** origins allowed by CORS, comma-separated; `*` for any; empty: no CORS headers */
  @Transform(toList) @IsString({ each: true })
  CORS_ORIGINS: string[] = [];

  /** where uploads and outputs live: `local` (DATA_DIR/storage, served by signed /files URLs) or `s3` (an S3-compatible bucket) */
  @IsIn(['local', 's3'])
  STORAGE: 'local' | 's3' = 'local';

  /** S3-compatible endpoint (MinIO, R2, ...); unset for AWS S3 */
  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
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

/** The names of every variable of the schema (the decorated properties), in declaration order. */
export function schemaVariables(): string[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(EnvironmentVariables, '', true, false);
  return [...new Set(metadata.map((entry) => entry.propertyName))];
}
