import { ConfigError, loadConfig } from '../../../src/config/app-config';

/** the variables a ConfigError names for `env`; none when it loads */
function refused(env: Record<string, string>): string[] {
  try {
    loadConfig({ ADMIN_TOKEN: 'a'.repeat(16), ...env });
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.variables;
    throw error;
  }
}

/** Values that failed later, with a message naming no variable ("Invalid URL", "getaddrinfo ENOTFOUND base"), are refused at start. */
describe('connections and lists in the configuration', () => {
  it.each([
    [{ DATABASE_URL: 'notaurl' }, ['DATABASE_URL']],
    [{ DATABASE_URL: 'mysql://db/x' }, ['DATABASE_URL']],
    [{ DATABASE_URL: 'postgres://user:pw@db:5432/x' }, []],
    [{ DATABASE_URL: 'postgresql:///x?host=/var/run/postgresql' }, []],
    [{ REDIS_URL: 'notaurl' }, ['REDIS_URL']],
    [{ REDIS_URL: 'http://x:1' }, ['REDIS_URL']],
    [{ REDIS_URL: 'redis://h/abc' }, ['REDIS_URL']],
    [{ REDIS_URL: 'rediss://:secret@h:6380/2' }, []],
    [{ REDIS_URL: 'redis://127.0.0.1:6379' }, []],
    // without a scheme these loaded, then the API handed out video_url values it refused itself, and S3 signing failed with "Invalid URL"
    [{ PUBLIC_BASE_URL: 'backdrop.example.com' }, ['PUBLIC_BASE_URL']],
    [{ PUBLIC_BASE_URL: 'https://backdrop.example.com/?x=1' }, ['PUBLIC_BASE_URL']],
    [{ PUBLIC_BASE_URL: 'https://backdrop.example.com/#top' }, ['PUBLIC_BASE_URL']],
    [{ PUBLIC_BASE_URL: 'https://example.com/backdrop' }, []],
    [{ STORAGE: 's3', S3_BUCKET: 'outputs', S3_ENDPOINT: 'minio:9000' }, ['S3_ENDPOINT']],
    [{ STORAGE: 's3', S3_BUCKET: 'outputs', S3_ENDPOINT: 'http://minio:9000' }, []],
  ])('%j: refused %j', (env, variables) => {
    expect(refused(env)).toEqual(variables);
  });

  it('a Postgres queue schema must be a plain identifier; with Redis the namespace is a key prefix, free', () => {
    expect(refused({ QUEUE_NAMESPACE: 'my-queue' })).toEqual(['QUEUE_NAMESPACE']);
    expect(refused({ QUEUE_NAMESPACE: '1queue' })).toEqual(['QUEUE_NAMESPACE']);
    expect(refused({ QUEUE_NAMESPACE: 'q'.repeat(63) })).toEqual([]);
    expect(refused({ QUEUE_NAMESPACE: 'q'.repeat(64) })).toEqual(['QUEUE_NAMESPACE']);
    expect(refused({ QUEUE_NAMESPACE: 'my-queue', REDIS_URL: 'redis://127.0.0.1:6379' })).toEqual([]);
  });

  it('each OUTBOUND_ALLOW_LIST entry is an address, a CIDR within its family or a host name', () => {
    expect(refused({ OUTBOUND_ALLOW_LIST: '10.0.0.0/8,fd00::/128,10.0.0.5,minio.local,localhost' })).toEqual([]);
    for (const bad of ['10.0.0.0/99', '10.0.0.0/33', 'fd00::/129', 'minio.local/8', '10.0.0.0/8/1', 'a b']) expect(refused({ OUTBOUND_ALLOW_LIST: bad })).toEqual(['OUTBOUND_ALLOW_LIST']);
  });

  it('CHUNK_SECONDS is 0 (never cut) or at least 1 (0.001 would cut 600 s into 600,000 chunks)', () => {
    expect(refused({ CHUNK_SECONDS: '0' })).toEqual([]);
    expect(refused({ CHUNK_SECONDS: '1' })).toEqual([]);
    expect(refused({ CHUNK_SECONDS: '0.999' })).toEqual(['CHUNK_SECONDS']);
  });

  it('remote workers with S3: their URLs (the job timeout and 15 minutes) must be signable, at most a week', () => {
    const remoteOnS3 = { STORAGE: 's3', S3_BUCKET: 'outputs', WORKER_GATEWAY: 'remote', WORKER_URLS: 'https://gpu.example.com', WORKER_API_KEY: 'w'.repeat(16) };
    expect(refused({ ...remoteOnS3, WORKER_JOB_TIMEOUT_SECONDS: '603900' })).toEqual([]);
    expect(refused({ ...remoteOnS3, WORKER_JOB_TIMEOUT_SECONDS: '603901' })).toEqual(['WORKER_JOB_TIMEOUT_SECONDS']);
    expect(refused({ ...remoteOnS3, STORAGE: 'local', WORKER_JOB_TIMEOUT_SECONDS: '864000' })).toEqual([]);
  });

  it('lifetimes and sizes within what their use can hold (a TTL past 12 digits of expiry made every URL look forged)', () => {
    expect(refused({ SIGNED_URL_TTL_SECONDS: '31536000', IDEMPOTENCY_TTL_SECONDS: '31536000', RETENTION_HOURS: '876000', MAX_UPLOAD_BYTES: String(Number.MAX_SAFE_INTEGER) })).toEqual([]);
    expect(refused({ SIGNED_URL_TTL_SECONDS: '31536001', IDEMPOTENCY_TTL_SECONDS: '31536001', RETENTION_HOURS: '876001', MAX_UPLOAD_BYTES: '1e300' }).sort()).toEqual(['IDEMPOTENCY_TTL_SECONDS', 'MAX_UPLOAD_BYTES', 'RETENTION_HOURS', 'SIGNED_URL_TTL_SECONDS']);
  });

  it('CHUNK_PREROLL_SECONDS is at most CHUNK_SECONDS where jobs are cut (each chunk mattes its pre-roll again)', () => {
    expect(refused({ CHUNK_SECONDS: '2', CHUNK_PREROLL_SECONDS: '2' })).toEqual([]);
    expect(refused({ CHUNK_SECONDS: '2', CHUNK_PREROLL_SECONDS: '2.5' })).toEqual(['CHUNK_PREROLL_SECONDS']);
    expect(refused({ CHUNK_SECONDS: '0', CHUNK_PREROLL_SECONDS: '10' })).toEqual([]);
  });
});
