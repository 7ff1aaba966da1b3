import { Clock, SystemClock } from '../../src/common/clock';
import { InMemoryOutboundHttp } from '../../src/common/in-memory.outbound-http';
import { OutboundHttp } from '../../src/common/outbound-http';
import { getQueueToken } from '@nestjs/bullmq';
import { Global, Module } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { getRepositoryToken } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import TestAgent from 'supertest/lib/agent';
import { AppModule } from '../../src/app.module';
import { AppConfig, loadConfig } from '../../src/config/app-config';
import { backdropHttpAdapter, configureHttp } from '../../src/create-app';
import { ENTITIES } from '../../src/composition/typeorm.transaction-scope';
import { InMemoryUnitOfWork } from '../../src/common/in-memory.unit-of-work';
import { PortToken, UnitOfWork } from '../../src/common/unit-of-work';
import { JOBS_QUEUE, jobsWorkerName, MAINTENANCE_QUEUE, WEBHOOKS_QUEUE } from '../../src/infrastructure/queue/queue-connection';
import { hashToken, InstanceSecrets } from '../../src/infrastructure/secrets/instance-secrets';
import { InMemoryApiKeyRepository } from '../../src/modules/auth/adapters/in-memory/in-memory.api-key.repository';
import { ApiKeysService } from '../../src/modules/auth/application/api-keys.service';
import { ApiKeyRepository } from '../../src/modules/auth/ports/api-key.repository';
import { InMemoryCreditLedger } from '../../src/modules/billing/adapters/in-memory/in-memory.credit-ledger';
import { CreditLedger } from '../../src/modules/billing/ports/credit-ledger';
import { DatabaseProbe, InMemoryDatabaseProbe } from '../../src/modules/health/database-probe';
import { InMemoryIdempotencyStore } from '../../src/modules/idempotency/adapters/in-memory/in-memory.idempotency-store';
import { IdempotencyStore } from '../../src/modules/idempotency/ports/idempotency-store';
import { ProcessJobProcessor } from '../../src/modules/jobs/adapters/bullmq/process-job.processor';
import { InMemoryJobDispatcher } from '../../src/modules/jobs/adapters/in-memory/in-memory.job-dispatcher';
import { InMemoryJobEventLog } from '../../src/modules/jobs/adapters/in-memory/in-memory.job-event-log';
import { InMemoryJobRepository } from '../../src/modules/jobs/adapters/in-memory/in-memory.job.repository';
import { ProcessJobHandler } from '../../src/modules/jobs/application/process-job.handler';
import { JobDispatcher } from '../../src/modules/jobs/ports/job-dispatcher';
import { ChunkDispatcher } from '../../src/modules/jobs/ports/chunk-dispatcher';
import { ChunkJoiner } from '../../src/modules/jobs/ports/chunk-joiner';
import { InMemoryChunkJoiner } from '../../src/modules/jobs/adapters/in-memory/in-memory.chunk-joiner';
import { ChunkedJobHandler } from '../../src/modules/jobs/application/chunked-job.handler';
import { InMemoryChunkDispatcher } from '../../src/modules/jobs/adapters/in-memory/in-memory.chunk-dispatcher';
import { JobEventLog } from '../../src/modules/jobs/ports/job-event-log';
import { JobRepository } from '../../src/modules/jobs/ports/job.repository';
import { InMemoryRateLimitStore } from '../../src/modules/rate-limit/adapters/in-memory/in-memory.rate-limit-store';
import { RateLimitStore } from '../../src/modules/rate-limit/ports/rate-limit-store';
import { ApiKeyChanges } from '../../src/modules/auth/ports/api-key-changes';
import { RetentionProcessor } from '../../src/modules/retention/adapters/bullmq/retention.processor';
import { InMemoryRetentionStore } from '../../src/modules/retention/adapters/in-memory/in-memory.retention-store';
import { RetentionStore } from '../../src/modules/retention/ports/retention-store';
import { InMemoryObjectStorage } from '../../src/modules/storage/adapters/in-memory/in-memory.object-storage';
import { UrlSigner } from '../../src/modules/storage/application/url-signer';
import { ObjectStorage } from '../../src/modules/storage/ports/object-storage';
import { InMemoryUploadRepository } from '../../src/modules/uploads/adapters/in-memory/in-memory.upload.repository';
import { UploadRepository } from '../../src/modules/uploads/ports/upload.repository';
import { InMemoryUsageStore } from '../../src/modules/usage/adapters/in-memory/in-memory.usage-store';
import { UsageStore } from '../../src/modules/usage/ports/usage-store';
import { InMemoryWebhookDeliveryQueue, InMemoryWebhookOutbox } from '../../src/modules/webhooks/adapters/in-memory/in-memory.webhook-outbox';
import { DeliverWebhookHandler } from '../../src/modules/webhooks/application/deliver-webhook.handler';
import { WebhookDeliveryQueue } from '../../src/modules/webhooks/ports/webhook-announcements';
import { WebhookOutbox } from '../../src/modules/webhooks/ports/webhook-outbox';
import { WorkerGateway } from '../../src/modules/worker-gateway/ports/worker-gateway';
import { RemoteRunRegistry } from '../../src/modules/worker-gateway/ports/remote-run-registry';
import { InMemoryRemoteRunRegistry } from '../../src/modules/worker-gateway/adapters/in-memory/in-memory.remote-run-registry';
import { FakeWorkerGateway } from './fake-worker-gateway';
import { randomPort } from './processes';
import { AdapterSwap, ADMIN_TOKEN } from './test-app';

/** The in-memory adapters the app runs on, for a test to look into. */
export interface InMemoryAdapters {
  keys: InMemoryApiKeyRepository;
  jobs: InMemoryJobRepository;
  ledger: InMemoryCreditLedger;
  events: InMemoryJobEventLog;
  outbox: InMemoryWebhookOutbox;
  uploads: InMemoryUploadRepository;
  storage: InMemoryObjectStorage;
  idempotency: InMemoryIdempotencyStore;
  usage: InMemoryUsageStore;
  dispatcher: InMemoryJobDispatcher;
  deliveries: InMemoryWebhookDeliveryQueue;
  retention: InMemoryRetentionStore;
}

export interface InMemoryApp {
  app: NestExpressApplication;
  http: TestAgent;
  baseUrl: string;
  config: AppConfig;
  fake: FakeWorkerGateway;
  adapters: InMemoryAdapters;
  createKey(credits?: number): Promise<string>;
  close(): Promise<void>;
}

/**
 * What BullMQ's queues answer the metrics and the health probe (depth by state), read from the
 * in-memory queue: the queues the app's code injects when no queue backend is connected.
 */
function queueView(name: string, dispatcher?: InMemoryJobDispatcher, workerName?: string) {
  const getJobCounts = async () => ({ waiting: 0, active: 0, delayed: 0, failed: 0, completed: 0, ...dispatcher?.counts() });
  // the in-memory dispatcher runs every job it is given: the jobs queue always has its one worker, as BullMQ lists it
  return { name, getJobCounts, getWorkers: async () => (workerName ? [{ name, rawname: `${name}:w:${workerName}` }] : []) };
}

function inMemoryQueues(dispatcher: InMemoryJobDispatcher, namespace: string) {
  const providers = [
    { provide: getQueueToken(JOBS_QUEUE), useValue: queueView(JOBS_QUEUE, dispatcher, jobsWorkerName(namespace)) },
    { provide: getQueueToken(WEBHOOKS_QUEUE), useValue: queueView(WEBHOOKS_QUEUE) },
    { provide: getQueueToken(MAINTENANCE_QUEUE), useValue: queueView(MAINTENANCE_QUEUE) },
  ];
  @Global()
  @Module({ providers, exports: providers.map((provider) => provider.provide) })
  class InMemoryQueuesModule {}
  return InMemoryQueuesModule;
}

/**
 * The whole API (every module, every controller, guards, interceptors) on in-memory adapters only:
 * no Postgres, no Redis, no disk for the data, no network (an in-memory internet that serves
 * nothing until swapped for one that does), the scriptable fake worker; uploads are still probed by
 * the engine's ffprobe, a local tool. Jobs dispatched run through
 * ProcessJobHandler at once, webhook attempts through DeliverWebhookHandler after their delay;
 * retention is not scheduled (RetentionService.purge runs it). `options.adapters` swaps any port
 * further (docs/testing.md), e.g. the clock or outbound HTTP.
 */
export async function startInMemoryApp(env: Record<string, string> = {}, options: { adapters?: readonly AdapterSwap[] } = {}): Promise<InMemoryApp> {
  const port = randomPort();
  // long jobs stay whole unless a test sets CHUNK_SECONDS (the fake worker does not cut its output)
  const config = loadConfig({ ADMIN_TOKEN, PORT: String(port), HOST: '127.0.0.1', CHUNK_SECONDS: '0', ...env });
  const secrets: InstanceSecrets = { urlSigningSecret: randomBytes(32).toString('hex'), previousUrlSigningSecrets: [], adminTokenHash: hashToken(config.env.ADMIN_TOKEN ?? ADMIN_TOKEN) };
  const keys = new InMemoryApiKeyRepository();
  const jobs = new InMemoryJobRepository();
  const ledger = new InMemoryCreditLedger();
  const events = new InMemoryJobEventLog();
  // a port swapped by the test is swapped in the transactions' scope too: the app reads and writes the one adapter
  const swapped = new Map<unknown, unknown>(options.adapters);
  // the adapters that date what they keep read the test's clock where it swapped one in
  const clock = (swapped.get(Clock) as Clock | undefined) ?? new SystemClock();
  const now = (): Date => clock.now();
  const jobsOfWebhooks = swapped.get(JobRepository) instanceof InMemoryJobRepository ? (swapped.get(JobRepository) as InMemoryJobRepository) : jobs;
  const outbox = new InMemoryWebhookOutbox(now, (jobId, event, state) => jobsOfWebhooks.recordWebhookEvent(jobId, event, state));
  const uploads = new InMemoryUploadRepository();
  const adapters: InMemoryAdapters = {
    keys,
    jobs,
    ledger,
    events,
    outbox,
    uploads,
    storage: new InMemoryObjectStorage(now),
    idempotency: new InMemoryIdempotencyStore(clock),
    usage: new InMemoryUsageStore(events, ledger),
    dispatcher: new InMemoryJobDispatcher(),
    deliveries: new InMemoryWebhookDeliveryQueue(),
    retention: new InMemoryRetentionStore(now),
  };
  const transactional: Array<[PortToken<unknown>, unknown]> = (
    [[ApiKeyRepository, keys], [JobRepository, jobs], [CreditLedger, ledger], [JobEventLog, events], [WebhookOutbox, outbox], [UploadRepository, uploads], [IdempotencyStore, adapters.idempotency]] as Array<[PortToken<unknown>, unknown]>
  ).map(([port, adapter]) => [port, swapped.get(port) ?? adapter]);
  const fake = new FakeWorkerGateway(adapters.storage);
  const chunkFlows = new InMemoryChunkDispatcher(config.chunking.attempts);
  const swaps: Array<readonly [unknown, unknown]> = [
    ...transactional,
    [UnitOfWork, new InMemoryUnitOfWork(new Map(transactional))],
    [ObjectStorage, adapters.storage],
    [UsageStore, adapters.usage],
    [JobDispatcher, adapters.dispatcher],
    [ChunkDispatcher, chunkFlows],
    [ChunkJoiner, new InMemoryChunkJoiner(adapters.storage)],
    [WebhookDeliveryQueue, adapters.deliveries],
    [RetentionStore, adapters.retention],
    [DatabaseProbe, new InMemoryDatabaseProbe()],
    [RateLimitStore, new InMemoryRateLimitStore()],
    [ApiKeyChanges, keys.changes],
    [WorkerGateway, fake],
    // an internet that serves nothing until a test serves it (swap OutboundHttp with one that does)
    [OutboundHttp, new InMemoryOutboundHttp()],
    [RemoteRunRegistry, new InMemoryRemoteRunRegistry()],
    // The TypeORM repositories of the entities are never used: every adapter that would read them is swapped above.
    ...ENTITIES.map((entity): [unknown, unknown] => [getRepositoryToken(entity), null]),
    // The queue consumers: the in-memory queues hand their messages to the handlers themselves.
    [ProcessJobProcessor, {}],
    [RetentionProcessor, {}],
    ...(options.adapters ?? []),
  ];

  const builder = Test.createTestingModule({ imports: [AppModule.forRoot({ config, secrets }), inMemoryQueues(adapters.dispatcher, config.env.QUEUE_NAMESPACE)] });
  for (const [token, adapter] of swaps) builder.overrideProvider(token).useValue(adapter);
  const app = (await builder.compile()).createNestApplication<NestExpressApplication>(backdropHttpAdapter(), { bodyParser: false, logger: ['error'] });
  configureHttp(app, config.env.JSON_BODY_LIMIT);
  await app.listen(port, '127.0.0.1');
  const baseUrl = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  adapters.storage.serveAt(baseUrl, app.get(UrlSigner));
  const processJob = app.get(ProcessJobHandler);
  adapters.dispatcher.consumeWith((jobId) => processJob.handle(jobId));
  chunkFlows.consumeWith(app.get(ChunkedJobHandler));
  const deliverWebhook = app.get(DeliverWebhookHandler);
  adapters.deliveries.consumeWith((deliveryId) => deliverWebhook.handle(deliveryId));
  const apiKeys = app.get(ApiKeysService);
  return {
    app,
    http: request(baseUrl),
    baseUrl,
    config,
    fake,
    adapters,
    createKey: async (credits = 1000) => (await apiKeys.create('test-client', null, credits)).apiKey,
    close: async () => {
      adapters.deliveries.stop();
      await adapters.dispatcher.drain();
      await chunkFlows.drain();
      await app.close();
    },
  };
}
