import * as path from 'node:path';
import { AppConfig, ConfigError, loadConfig, secretsInConfig } from '../../../src/config/app-config';

const TOKEN = 'a-long-admin-token-0123456789';

/** Runs loadConfig and returns the ConfigError it throws; fails the test otherwise. */
function configErrorFrom(env: Record<string, string>): ConfigError {
  let thrown: unknown;
  try {
    loadConfig(env);
  } catch (error) {
    thrown = error;
  }
  if (!(thrown instanceof ConfigError)) throw new Error(`expected a ConfigError, got ${String(thrown)}`);
  return thrown;
}

function expectNames(env: Record<string, string>, variable: string): void {
  const error = configErrorFrom(env);
  expect(error.variable).toBe(variable);
  expect(error.message).toContain(variable);
}

describe('loadConfig defaults (empty environment)', () => {
  let config: AppConfig;
  beforeAll(() => {
    config = loadConfig({});
  });

  it('port 3000 and a public base URL from it', () => {
    expect(config.port).toBe(3000);
    expect(config.publicBaseUrl).toBe('http://localhost:3000');
  });

  it('embedded database, no Redis', () => {
    expect(config.embeddedDatabase).toBe(true);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.redisUrl).toBeUndefined();
  });

  it('role all, log level info', () => {
    expect(config.role).toBe('all');
    expect(config.env.LOG_LEVEL).toBe('info');
  });

  it('500 MB upload limit', () => {
    expect(config.maxUploadBytes).toBe(500 * 1024 * 1024);
  });

  it('pricing 60/45/180/45 credits per minute', () => {
    expect(config.creditsPerMinute).toEqual({ original: 60, light: 45, pro: 180, human: 45 });
  });

  it('Starter, Pro and Business packages', () => {
    expect(config.pricingPackages.map((p) => p.name)).toEqual(['Starter', 'Pro', 'Business']);
    for (const p of config.pricingPackages) expect(p).toEqual({ name: expect.any(String), credits: expect.any(Number), price_cents: expect.any(Number), currency: expect.any(String) });
  });

  it('data under ./data, models under it, empty allow-list', () => {
    expect(config.dataDir).toBe(path.resolve('./data'));
    expect(config.modelCacheDir).toBe(path.join(path.resolve('./data'), 'models'));
    expect(config.env.OUTBOUND_ALLOW_LIST).toEqual([]);
  });

  it('treats empty strings as unset', () => {
    const fromEmpty = loadConfig({ PORT: '', ROLE: '', DATABASE_URL: '', MAX_UPLOAD_BYTES: '' });
    expect(fromEmpty.port).toBe(3000);
    expect(fromEmpty.role).toBe('all');
    expect(fromEmpty.embeddedDatabase).toBe(true);
    expect(fromEmpty.maxUploadBytes).toBe(500 * 1024 * 1024);
  });
});

describe('loadConfig reads valid values', () => {
  it.each([['0'], ['1'], ['8080'], ['65535']])('PORT=%s', (port) => {
    const config = loadConfig({ PORT: port });
    expect(config.port).toBe(Number(port));
    expect(config.publicBaseUrl).toBe(`http://localhost:${port}`);
  });

  it.each(['api', 'worker', 'all'])('ROLE=%s', (role) => {
    expect(loadConfig({ ROLE: role }).role).toBe(role);
  });

  it.each(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])('LOG_LEVEL=%s', (level) => {
    expect(loadConfig({ LOG_LEVEL: level }).env.LOG_LEVEL).toBe(level);
  });

  it('MAX_UPLOAD_BYTES', () => {
    expect(loadConfig({ MAX_UPLOAD_BYTES: '1' }).maxUploadBytes).toBe(1);
    expect(loadConfig({ MAX_UPLOAD_BYTES: '1048576' }).maxUploadBytes).toBe(1048576);
  });

  it('DATABASE_URL with ADMIN_TOKEN is an external database', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://u:p@db:5432/backdrop', ADMIN_TOKEN: TOKEN });
    expect(config.embeddedDatabase).toBe(false);
    expect(config.databaseUrl).toBe('postgres://u:p@db:5432/backdrop');
  });

  it('pricing variables', () => {
    const config = loadConfig({ CREDITS_PER_MINUTE_ORIGINAL: '10', CREDITS_PER_MINUTE_LIGHT: '0', CREDITS_PER_MINUTE_PRO: '2.5', CREDITS_PER_MINUTE_HUMAN: '7' });
    expect(config.creditsPerMinute).toEqual({ original: 10, light: 0, pro: 2.5, human: 7 });
  });

  it('PRICING_PACKAGES JSON', () => {
    const packages = [{ name: 'Solo', credits: 10, price_cents: 100, currency: 'eur' }];
    expect(loadConfig({ PRICING_PACKAGES: JSON.stringify(packages) }).pricingPackages).toEqual(packages);
    expect(loadConfig({ PRICING_PACKAGES: '[]' }).pricingPackages).toEqual([]);
  });

  it('OUTBOUND_ALLOW_LIST is a trimmed comma list', () => {
    expect(loadConfig({ OUTBOUND_ALLOW_LIST: '127.0.0.0/8, minio.local ,10.0.0.5,,' }).env.OUTBOUND_ALLOW_LIST).toEqual(['127.0.0.0/8', 'minio.local', '10.0.0.5']);
    expect(loadConfig({ OUTBOUND_ALLOW_LIST: 'localhost' }).env.OUTBOUND_ALLOW_LIST).toEqual(['localhost']);
  });

  it.each([
    ['https://bd.example.com/', 'https://bd.example.com'],
    ['https://bd.example.com//', 'https://bd.example.com'],
    ['https://bd.example.com/base/', 'https://bd.example.com/base'],
    ['http://localhost:9000', 'http://localhost:9000'],
  ])('PUBLIC_BASE_URL %s -> %s', (raw, expected) => {
    expect(loadConfig({ PUBLIC_BASE_URL: raw }).publicBaseUrl).toBe(expected);
  });

  it('PUBLIC_BASE_URL wins over PORT', () => {
    expect(loadConfig({ PORT: '8080', PUBLIC_BASE_URL: 'https://bd.example.com/' }).publicBaseUrl).toBe('https://bd.example.com');
  });
});

describe('loadConfig refuses bad values, naming the variable', () => {
  it.each(['abc', '-1', '65536', '3000.5', '80abc'])('PORT=%s', (value) => {
    expectNames({ PORT: value }, 'PORT');
  });

  it.each(['API', 'both', 'web', ' all'])('ROLE=%s', (value) => {
    expectNames({ ROLE: value }, 'ROLE');
  });

  it.each(['verbose', 'INFO', 'warning', '3'])('LOG_LEVEL=%s', (value) => {
    expectNames({ LOG_LEVEL: value }, 'LOG_LEVEL');
  });

  it.each(['0', '-1', '1.5', 'lots', '500MB'])('MAX_UPLOAD_BYTES=%s', (value) => {
    expectNames({ MAX_UPLOAD_BYTES: value }, 'MAX_UPLOAD_BYTES');
  });

  it('DATABASE_URL without ADMIN_TOKEN names ADMIN_TOKEN', () => {
    expectNames({ DATABASE_URL: 'postgres://db/backdrop' }, 'ADMIN_TOKEN');
    expectNames({ DATABASE_URL: 'postgres://db/backdrop', ADMIN_TOKEN: '' }, 'ADMIN_TOKEN');
  });

  it('a short ADMIN_TOKEN names ADMIN_TOKEN', () => {
    expectNames({ ADMIN_TOKEN: 'short' }, 'ADMIN_TOKEN');
  });

  it.each([
    ['not JSON', 'not json'],
    ['truncated JSON', '[{"name":"A"'],
    ['an object', '{"name":"A","credits":1,"price_cents":1,"currency":"usd"}'],
    ['an entry without currency', '[{"name":"A","credits":1,"price_cents":1}]'],
    ['string credits', '[{"name":"A","credits":"1","price_cents":1,"currency":"usd"}]'],
    ['a null entry', '[null]'],
  ])('PRICING_PACKAGES as %s', (_name, value) => {
    expectNames({ PRICING_PACKAGES: value }, 'PRICING_PACKAGES');
  });

  it.each(['not a url', 'ftp://bd.example.com', 'https://user:secret@bd.example.com'])('PUBLIC_BASE_URL=%s', (value) => {
    expectNames({ PUBLIC_BASE_URL: value }, 'PUBLIC_BASE_URL');
  });

  it.each([
    [undefined, false],
    ['true', true],
    ['2', 2],
    ['loopback, 10.0.0.0/8', 'loopback, 10.0.0.0/8'],
  ])('TRUST_PROXY=%s is trust proxy %p', (value, expected) => {
    expect(loadConfig(value === undefined ? {} : { TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it.each(['yes', 'proxy.example.com', '10.0.0.0/8; rm'])('TRUST_PROXY=%s is refused', (value) => {
    expectNames({ TRUST_PROXY: value }, 'TRUST_PROXY');
  });

  it('WORKER_URLS with a user and password (they were logged on every call, which the outbound client refused)', () => {
    expectNames({ WORKER_GATEWAY: 'remote', WORKER_API_KEY: 'k'.repeat(16), WORKER_URLS: 'http://worker-1:8000,http://wuser:WorkerUrlPass123@worker-2:8000' }, 'WORKER_URLS');
    expect(loadConfig({ WORKER_GATEWAY: 'remote', WORKER_API_KEY: 'k'.repeat(16), WORKER_URLS: 'http://worker-1:8000' }).env.WORKER_URLS).toEqual(['http://worker-1:8000']);
  });

  it.each(['1MiB', 'abc', '0mb', '1024', '1.5mb'])('JSON_BODY_LIMIT=%s (the parser read 1MiB as 1 byte)', (value) => {
    expectNames({ JSON_BODY_LIMIT: value }, 'JSON_BODY_LIMIT');
  });

  it.each(['2048b', '500kb', '2MB'])('JSON_BODY_LIMIT=%s is taken', (value) => {
    expect(loadConfig({ JSON_BODY_LIMIT: value }).env.JSON_BODY_LIMIT).toBe(value);
  });

  it.each(['JOB_RELAY_INTERVAL_MS', 'JOB_REQUEUE_LOST_INTERVAL_MS', 'WEBHOOK_SWEEP_INTERVAL_MS', 'WORKER_SHUTDOWN_GRACE_MS', 'HTTP_SHUTDOWN_GRACE_MS', 'HTTP_BODY_TIMEOUT_MS', 'RETENTION_INTERVAL_MS'])('%s above what a Node timer holds (2^31 - 1 ms: a longer one fires after 1 ms)', (name) => {
    expectNames({ [name]: '2147483648' }, name);
    expect(() => loadConfig({ [name]: '2147483647' })).not.toThrow();
  });

  it('WORKER_JOB_TIMEOUT_SECONDS above what a Node timer holds', () => {
    expectNames({ WORKER_JOB_TIMEOUT_SECONDS: '2147484' }, 'WORKER_JOB_TIMEOUT_SECONDS');
  });

  it('a negative price names its variable', () => {
    expectNames({ CREDITS_PER_MINUTE_PRO: '-5' }, 'CREDITS_PER_MINUTE_PRO');
  });

  it('the error is a ConfigError with a readable message', () => {
    const error = configErrorFrom({ PORT: 'abc' });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ConfigError');
    expect(error.message).toMatch(/^Invalid configuration: PORT: /);
  });
});

describe('secretsInConfig (what the logs leave out)', () => {
  it("holds the tokens and keys set, not the services' passwords (docker-compose's `backdrop` took the word out of every line)", () => {
    const env = loadConfig({ ADMIN_TOKEN: 'a'.repeat(32), DATABASE_URL: 'postgres://backdrop:backdrop@db:5432/backdrop', REDIS_URL: 'redis://:RedisPw123@cache:6379', S3_BUCKET: 'bucket', S3_ACCESS_KEY_ID: 'AKIA0000', S3_SECRET_ACCESS_KEY: 'S3cretAccessKey000' }).env;
    expect(secretsInConfig(env).sort()).toEqual(['S3cretAccessKey000', 'a'.repeat(32)].sort());
    expect(secretsInConfig(loadConfig({ ADMIN_TOKEN: 'a'.repeat(32), DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' }).env)).toEqual(['a'.repeat(32)]);
  });
});
