/**
 * Remote workers' configuration and the pure parts of the gateway: variables checked at boot, the
 * adapter WORKER_GATEWAY names, the endpoint order of failover, the backoff schedule.
 */
import { ConfigError, loadConfig } from '../../src/config/app-config';
import { ObjectStorage } from '../../src/modules/storage/ports/object-storage';
import { LocalWorkerGateway } from '../../src/modules/worker-gateway/adapters/local.worker-gateway';
import { NoWorkerGateway } from '../../src/modules/worker-gateway/adapters/none.worker-gateway';
import { CallbackSigner } from '../../src/modules/worker-gateway/adapters/remote-http/callback-signer';
import { RemoteHttpWorkerGateway } from '../../src/modules/worker-gateway/adapters/remote-http/remote-http.worker-gateway';
import { retryDelayMs } from '../../src/modules/worker-gateway/adapters/remote-http/worker-api.client';
import { WorkerCallbackHub } from '../../src/modules/worker-gateway/adapters/remote-http/worker-callback-hub';
import { WorkerEndpoints } from '../../src/modules/worker-gateway/adapters/remote-http/worker-endpoints';
import { InMemoryRemoteRunRegistry } from '../../src/modules/worker-gateway/adapters/in-memory/in-memory.remote-run-registry';
import { createWorkerGateway } from '../../src/modules/worker-gateway/worker-gateway.module';
import { loadWorkerServerConfig } from '../../src/config/worker-server-config';

const remote = { WORKER_GATEWAY: 'remote', WORKER_URLS: 'http://10.0.0.5:8000, https://gpu.example.com/v2/abc', WORKER_API_KEY: 'k'.repeat(16) };

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    return error as ConfigError;
  }
  throw new Error('no ConfigError');
}

describe('remote worker configuration', () => {
  it('reads the remote variables', () => {
    const { env } = loadConfig({ ...remote, WORKER_POLL_INTERVAL_MS: '500', WORKER_JOB_TIMEOUT_SECONDS: '90' });
    expect(env).toMatchObject({ WORKER_GATEWAY: 'remote', WORKER_URLS: ['http://10.0.0.5:8000', 'https://gpu.example.com/v2/abc'], WORKER_POLL_INTERVAL_MS: 500, WORKER_JOB_TIMEOUT_SECONDS: 90 });
  });

  it.each([
    [{ ...remote, WORKER_API_KEY: '' }, 'WORKER_API_KEY', /required when WORKER_GATEWAY=remote/],
    [{ ...remote, WORKER_API_KEY: 'short' }, 'WORKER_API_KEY', /16/],
    [{ ...remote, WORKER_URLS: '' }, 'WORKER_URLS', /required when WORKER_GATEWAY=remote/],
    [{ ...remote, WORKER_URLS: 'ftp://gpu:21' }, 'WORKER_URLS', /URL/],
    [{ ...remote, WORKER_POLL_INTERVAL_MS: '10' }, 'WORKER_POLL_INTERVAL_MS', /50/],
    [{ ...remote, WORKER_GATEWAY: 'cloud' }, 'WORKER_GATEWAY', /local, remote, none/],
  ])('refuses %j naming %s', (env, variable, message) => {
    const error = configError(env);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.variable).toBe(variable);
    expect(error.message).toMatch(message);
  });

  it('builds the adapter WORKER_GATEWAY names', async () => {
    const storage = {} as ObjectStorage;
    const build = (env: Record<string, string>) => createWorkerGateway(loadConfig(env), storage, new CallbackSigner('s'.repeat(32)), new WorkerCallbackHub(), new InMemoryRemoteRunRegistry());
    expect(build(remote)).toBeInstanceOf(RemoteHttpWorkerGateway);
    expect(build({})).toBeInstanceOf(LocalWorkerGateway);
    const none = build({ WORKER_GATEWAY: 'none' });
    expect(none).toBeInstanceOf(NoWorkerGateway);
    expect(await none.check()).toBe('no worker gateway configured (WORKER_GATEWAY=none)');
  });

  it('the worker server names its bad variable too', () => {
    expect(() => loadWorkerServerConfig({})).toThrow(new ConfigError([{ variable: 'WORKER_API_KEY', message: 'is required (at least 16 characters)' }]));
    expect(() => loadWorkerServerConfig({ WORKER_API_KEY: 'k'.repeat(16), WORKER_CONCURRENCY: '0' })).toThrow(/WORKER_CONCURRENCY/);
    expect(loadWorkerServerConfig({ WORKER_API_KEY: 'k'.repeat(16) })).toMatchObject({ port: 8000, concurrency: 1, queueSize: 16, resultTtlMs: 1_800_000 });
  });
});

describe('failover order and backoff', () => {
  it('takes healthy endpoints in turn, and cooling-down ones last until their cooldown ends', () => {
    let now = 0;
    const endpoints = new WorkerEndpoints(['a', 'b', 'c'], 1000, () => now);
    expect(endpoints.candidates()).toEqual(['a', 'b', 'c']);
    expect(endpoints.candidates()).toEqual(['b', 'c', 'a']);
    endpoints.markFailed('c', 'down');
    now = 100;
    endpoints.markFailed('a', 'down');
    expect(endpoints.candidates()).toEqual(['b', 'c', 'a']);
    now = 1000; // c is back, a still cools down
    expect(endpoints.candidates()).toEqual(['b', 'c', 'a']);
    now = 1100; // all healthy: plain rotation again
    expect(endpoints.candidates()).toEqual(['b', 'c', 'a']);
    expect(endpoints.candidates()).toEqual(['c', 'a', 'b']);
    endpoints.markHealthy('c');
    expect(endpoints.lastFailure('c')).toBeUndefined();
  });

  it('doubles the delay per attempt (up to 20% jitter) and never waits less than Retry-After', () => {
    expect([1, 2, 3].map((attempt) => retryDelayMs(attempt, 100, null, () => 0))).toEqual([100, 200, 400]);
    expect(retryDelayMs(1, 100, null, () => 1)).toBe(120);
    expect(retryDelayMs(1, 100, 3, () => 0)).toBe(3000);
    expect(retryDelayMs(1, 100, 3600, () => 0)).toBe(60_000);
  });
});
