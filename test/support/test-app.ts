import { UnitOfWork } from '../../src/common/unit-of-work';
import { TRANSACTIONAL_PORTS } from '../../src/composition/typeorm.transaction-scope';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { NestContainer } from '@nestjs/core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import TestAgent from 'supertest/lib/agent';
import { AppModule } from '../../src/app.module';
import { AppConfig, loadConfig } from '../../src/config/app-config';
import { backdropHttpAdapter, configureHttp } from '../../src/create-app';
import { migrate } from '../../src/composition/data-source';
import { PortToken } from '../../src/common/unit-of-work';
import { loadInstanceSecrets } from '../../src/infrastructure/secrets/instance-secrets';
import { ApiKeysService } from '../../src/modules/auth/application/api-keys.service';
import { ObjectStorage } from '../../src/modules/storage/ports/object-storage';
import { WorkerGateway } from '../../src/modules/worker-gateway/ports/worker-gateway';
import { FakeWorkerGateway } from './fake-worker-gateway';
import { createTestDatabase, TestDatabase } from './test-database';
import { randomPort } from './processes';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
export const MEDIA_DIR = path.resolve(__dirname, '../../../shared/media');

export interface TestApp {
  app: NestExpressApplication;
  http: TestAgent;
  baseUrl: string;
  config: AppConfig;
  fake: FakeWorkerGateway;
  dataDir: string;
  createKey(credits?: number): Promise<string>;
  close(): Promise<void>;
}

/** A port (its abstract class, the Nest token) and the adapter to put in its place. */
export type AdapterSwap<T = unknown> = readonly [PortToken<T>, T];

/** Pairs a port with its replacement, type-checked: `swap(Clock, FixedClock.at('2026-01-01'))`. */
export const swap = <T>(port: PortToken<T>, adapter: T): AdapterSwap => [port, adapter] as AdapterSwap;

export interface TestAppOptions {
  /** the adapter WORKER_GATEWAY names (e.g. remote) instead of the fake */
  realWorkerGateway?: boolean;
  /**
   * Adapters to use instead of the configured ones (docs/testing.md). The ports used inside a
   * transaction (TRANSACTIONAL_PORTS: the repositories, the ledger, the event log, the outbox, the
   * idempotency store) come from the UnitOfWork's scope, so they are swapped together with UnitOfWork
   * or not at all: one swapped alone is refused (the app would read the swapped adapter and write Postgres).
   */
  adapters?: readonly AdapterSwap[];
  /** the address the app reaches its database at, given the test database's (a proxy the test can cut); migrations take the database directly */
  databaseUrlOf?: (url: string) => string;
}

/**
 * The real application (real HTTP on a loopback port, real Postgres in a fresh database, real queue)
 * with the scriptable fake WorkerGateway in place of the engine, and any other adapter swapped in.
 */
export async function startTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  refuseSplitTransactions(options.adapters ?? []);
  const database: TestDatabase = await createTestDatabase();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'backdrop-test-'));
  const port = randomPort();
  const databaseUrl = options.databaseUrlOf?.(database.url) ?? database.url;
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    ADMIN_TOKEN,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    QUEUE_NAMESPACE: `q_${path.basename(dataDir).replace(/[^A-Za-z0-9]/g, '')}`,
    // A job a failed test left running would otherwise hold close() for the 30 s production grace.
    WORKER_SHUTDOWN_GRACE_MS: '1000',
    HTTP_SHUTDOWN_GRACE_MS: '1000',
    ...env,
  });
  const migrations = await migrate(database.url);
  const secrets = await loadInstanceSecrets(migrations, config);
  await migrations.destroy();

  let fake: FakeWorkerGateway | undefined;
  const builder = Test.createTestingModule({ imports: [AppModule.forRoot({ config, databaseUrl, secrets })] });
  // realWorkerGateway: the adapter WORKER_GATEWAY names (e.g. remote) instead of the fake
  if (!options.realWorkerGateway) {
    builder.overrideProvider(WorkerGateway).useFactory({ factory: (storage: ObjectStorage) => (fake = new FakeWorkerGateway(storage)), inject: [ObjectStorage] });
  }
  for (const [port, adapter] of options.adapters ?? []) builder.overrideProvider(port).useValue(adapter);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>(backdropHttpAdapter(), { bodyParser: false, logger: ['error'] });
  configureHttp(app, config.env.JSON_BODY_LIMIT);
  reportSlowShutdownHooks(app);
  try {
    await app.listen(port, '127.0.0.1');
  } catch (error) {
    // a started app left behind would keep reaching Postgres after this test file's environment is gone
    await app.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const baseUrl = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  const keys = app.get(ApiKeysService);
  return {
    app,
    http: request(baseUrl),
    baseUrl,
    config,
    fake: fake ?? new FakeWorkerGateway(app.get(ObjectStorage)),
    dataDir,
    createKey: async (credits = 1000) => (await keys.create('test-client', null, credits)).apiKey,
    close: async () => {
      await reportingSlowness('app.close()', () => app.close());
      await reportingSlowness('dropping the test database', () => database.drop());
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Runs a teardown step, and says on stderr which one it was when it took long (a CI log then shows what held a hook). */
async function reportingSlowness(step: string, run: () => Promise<void>): Promise<void> {
  const started = Date.now();
  const warning = setInterval(() => process.stderr.write(`test app teardown: ${step} still running after ${Math.round((Date.now() - started) / 1000)} s\n`), 10000);
  try {
    await run();
  } finally {
    clearInterval(warning);
  }
}

const SHUTDOWN_HOOKS = ['onModuleDestroy', 'beforeApplicationShutdown', 'onApplicationShutdown'] as const;

/** Wraps every provider's shutdown hooks, and the HTTP server's close, so that one holding app.close() names itself on stderr. */
function reportSlowShutdownHooks(app: NestExpressApplication): void {
  const container = (app as unknown as { container: NestContainer }).container;
  for (const module of container.getModules().values()) {
    for (const wrapper of module.providers.values()) {
      const instance = wrapper.instance as Record<string, unknown> | null | undefined;
      if (!instance || typeof instance !== 'object') continue;
      for (const hook of SHUTDOWN_HOOKS) {
        const original = instance[hook];
        if (typeof original !== 'function') continue;
        instance[hook] = (...args: unknown[]) => reportingSlowness(`${instance.constructor.name}.${hook}`, async () => void (await original.apply(instance, args)));
      }
    }
  }
  const adapter = app.getHttpAdapter();
  const close = adapter.close.bind(adapter);
  adapter.close = () => reportingSlowness('closing the HTTP server', async () => void (await close()));
}

/** Polls until `check` returns a value (not undefined) or the time is up. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 15000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** A transactional port swapped without the UnitOfWork would be read from its swap and written to Postgres. */
export function refuseSplitTransactions(adapters: readonly AdapterSwap[]): void {
  const swapped = new Set(adapters.map(([port]) => port));
  if (swapped.has(UnitOfWork)) return;
  const split = TRANSACTIONAL_PORTS.filter((port) => swapped.has(port));
  if (split.length) {
    throw new Error(`${split.map((port) => port.name).join(', ')} ${split.length === 1 ? 'is' : 'are'} used inside transactions: swap UnitOfWork too, with a scope of the swapped adapters (InMemoryUnitOfWork), or the app reads the swap and writes Postgres`);
  }
}
