import { ENGINE_MALLOC_SETTINGS, ENGINE_TELEMETRY_SETTINGS, engineProcessEnv } from '../../../src/engine/runner/engine-environment';

describe("the engine processes' environment", () => {
  it("is the parent's with ONNX Runtime's telemetry off and glibc's malloc thresholds fixed: mmap at 32 MB, the heap's top kept up to 256 MB", () => {
    const env = engineProcessEnv({ PATH: '/usr/bin', TMPDIR: '/tmp/backdrop-process-7', NODE_OPTIONS: '--max-old-space-size=4096', OMP_NUM_THREADS: '1' });
    expect(env).toEqual({ PATH: '/usr/bin', TMPDIR: '/tmp/backdrop-process-7', NODE_OPTIONS: '--max-old-space-size=4096', OMP_NUM_THREADS: '1', ORT_DISABLE_TELEMETRY: '1', MALLOC_MMAP_THRESHOLD_: '33554432', MALLOC_TRIM_THRESHOLD_: '268435456' });
  });

  it("leaves out the service's secrets and settings: ffmpeg, which parses untrusted video, could read them from /proc (it did)", () => {
    const secrets = { DATABASE_URL: 'postgres://backdrop:pw@db/x', ADMIN_TOKEN: 'a'.repeat(32), S3_SECRET_ACCESS_KEY: 's', WORKER_API_KEY: 'k', REDIS_URL: 'redis://:pw@cache', URL_SIGNING_SECRET: 'u', AWS_SECRET_ACCESS_KEY: 'aws', BACKDROP_KEY: 'bd_live_x' };
    expect(Object.keys(engineProcessEnv({ PATH: '/usr/bin', ...secrets })).sort()).toEqual(['MALLOC_MMAP_THRESHOLD_', 'MALLOC_TRIM_THRESHOLD_', 'ORT_DISABLE_TELEMETRY', 'PATH']);
  });

  it.each(Object.keys(ENGINE_MALLOC_SETTINGS))("keeps an operator's %s as set, and adds neither threshold (one alone is not ours to complete)", (name) => {
    const env = engineProcessEnv({ PATH: '/usr/bin', [name]: '1048576' });
    expect(env).toEqual({ PATH: '/usr/bin', [name]: '1048576', ...ENGINE_TELEMETRY_SETTINGS });
  });

  it("keeps an operator's ORT_DISABLE_TELEMETRY as set (0 lets ONNX Runtime's telemetry on)", () => {
    const env = engineProcessEnv({ PATH: '/usr/bin', ORT_DISABLE_TELEMETRY: '0' });
    expect(env).toEqual({ PATH: '/usr/bin', ORT_DISABLE_TELEMETRY: '0', ...ENGINE_MALLOC_SETTINGS });
  });

  it("does not change the parent's environment", () => {
    const parent = { PATH: '/usr/bin' };
    engineProcessEnv(parent);
    expect(parent).toEqual({ PATH: '/usr/bin' });
  });
});
