import { ENGINE_MALLOC_SETTINGS, ENGINE_TELEMETRY_SETTINGS, engineProcessEnv } from '../../../src/engine/runner/engine-environment';

describe("the engine processes' environment", () => {
  it("is the parent's with ONNX Runtime's telemetry off and glibc's malloc thresholds fixed: mmap at 32 MB, the heap's top kept up to 256 MB", () => {
    const env = engineProcessEnv({ PATH: '/usr/bin', BACKDROP_X: 'y' });
    expect(env).toEqual({ PATH: '/usr/bin', BACKDROP_X: 'y', ORT_DISABLE_TELEMETRY: '1', MALLOC_MMAP_THRESHOLD_: '33554432', MALLOC_TRIM_THRESHOLD_: '268435456' });
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
