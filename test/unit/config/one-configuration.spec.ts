import { ConfigError, loadConfig } from '../../../src/config/app-config';
import { loadWorkerServerConfig } from '../../../src/config/worker-server-config';

function thrown(load: () => unknown): ConfigError {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

const WORKER_KEY = 'k'.repeat(16);

describe('one configuration for the API and the worker server', () => {
  it('an invalid start names every bad variable, not just the first', () => {
    const error = thrown(() => loadConfig({ PORT: 'abc', WORKER_CONCURRENCY: '0', RETENTION_HOURS: '-1', HTTP_HEADERS_TIMEOUT_MS: '1000' }));
    expect(error.variables.sort()).toEqual(['HTTP_HEADERS_TIMEOUT_MS', 'PORT', 'RETENTION_HOURS', 'WORKER_CONCURRENCY']);
    for (const name of error.variables) expect(error.message).toContain(`${name}: `);
  });

  it('a check across variables is reported beside the invalid values', () => {
    const error = thrown(() => loadConfig({ STORAGE: 's3', WORKER_GATEWAY: 'remote', LOG_LEVEL: 'loud' }));
    expect(error.variables.sort()).toEqual(['LOG_LEVEL', 'S3_BUCKET', 'WORKER_API_KEY', 'WORKER_URLS']);
  });

  it('the worker server reads the same schema: the same variable means the same on both sides', () => {
    const env = { WORKER_API_KEY: WORKER_KEY, WORKER_CONCURRENCY: '3', MAX_UPLOAD_BYTES: '1234', MODEL_CACHE_DIR: '/var/cache/backdrop', FFMPEG_PATH: '/opt/ffmpeg' };
    const worker = loadWorkerServerConfig(env);
    const api = loadConfig(env);
    expect(worker).toMatchObject({ concurrency: 3, maxInputBytes: 1234, modelCacheDir: '/var/cache/backdrop', mediaBinaries: { ffmpeg: '/opt/ffmpeg' } });
    expect([api.env.WORKER_CONCURRENCY, api.maxUploadBytes, api.modelCacheDir, api.mediaBinaries.ffmpeg]).toEqual([3, 1234, '/var/cache/backdrop', '/opt/ffmpeg']);
  });

  it("both give the engine's processes the environment they were read from, without its secrets, with ONNX Runtime's telemetry off and the engine's malloc settings (engine-environment.ts)", () => {
    const env = { WORKER_API_KEY: WORKER_KEY, PATH: '/usr/bin' };
    const expected = { PATH: '/usr/bin', ORT_DISABLE_TELEMETRY: '1', MALLOC_MMAP_THRESHOLD_: '33554432', MALLOC_TRIM_THRESHOLD_: '268435456' };
    expect(loadWorkerServerConfig(env).engineProcessEnv).toEqual(expected);
    expect(loadConfig(env).engineProcessEnv).toEqual(expected);
  });

  it("the worker server checks its queue's URLs and schema as the API checks its own (a database number that was not one crashed it with Redis's stack trace)", () => {
    const error = thrown(() => loadWorkerServerConfig({ WORKER_API_KEY: WORKER_KEY, WORKER_REDIS_URL: 'redis://127.0.0.1:6379/backdrop', WORKER_DATABASE_URL: '127.0.0.1:5432/test', WORKER_QUEUE_NAMESPACE: 'q'.repeat(64) }));
    expect(error.variables.sort()).toEqual(['WORKER_DATABASE_URL', 'WORKER_QUEUE_NAMESPACE', 'WORKER_REDIS_URL']);
    expect(() => loadWorkerServerConfig({ WORKER_API_KEY: WORKER_KEY, WORKER_REDIS_URL: 'rediss://:pw@redis:6380/2', WORKER_DATABASE_URL: 'postgres://u:pw@db/x', WORKER_QUEUE_NAMESPACE: 'q'.repeat(63) })).not.toThrow();
  });

  it('the worker server refuses what the schema refuses, naming every bad variable', () => {
    const error = thrown(() => loadWorkerServerConfig({ WORKER_PORT: '70000', WORKER_QUEUE_SIZE: 'many', WORKER_TRANSFER_TIMEOUT_MS: '5' }));
    expect(error.variables.sort()).toEqual(['WORKER_API_KEY', 'WORKER_PORT', 'WORKER_QUEUE_SIZE', 'WORKER_TRANSFER_TIMEOUT_MS']);
  });

  it('the worker server does not need what only the API needs (an admin token beside DATABASE_URL)', () => {
    expect(loadWorkerServerConfig({ WORKER_API_KEY: WORKER_KEY, DATABASE_URL: 'postgres://db/x' }).port).toBe(8000);
    expect(thrown(() => loadConfig({ DATABASE_URL: 'postgres://db/x' })).variables).toEqual(['ADMIN_TOKEN']);
  });

  it('unset and empty mean the default; FFMPEG_PATH unset keeps the npm build', () => {
    const worker = loadWorkerServerConfig({ WORKER_API_KEY: WORKER_KEY, WORKER_PORT: '', MAX_UPLOAD_BYTES: '' });
    expect(worker).toMatchObject({ port: 8000, maxInputBytes: 500 * 1024 * 1024, mediaBinaries: { ffmpeg: undefined, ffprobe: undefined } });
  });
});
