import { DataSource } from 'typeorm';
import { newJobId, newUploadId } from '../../src/common/ids';
import { migrate } from '../../src/composition/data-source';
import { CreditLedger } from '../../src/modules/billing/ports/credit-ledger';
import { typeOrmScopeOf as scopeOf } from '../../src/composition/typeorm.transaction-scope';
import { ApiKeyRecord } from '../../src/modules/auth/adapters/typeorm/api-key.record';
import { TypeOrmApiKeyRepository } from '../../src/modules/auth/adapters/typeorm/typeorm.api-key.repository';
import { issueApiKey } from '../../src/modules/auth/domain/api-key';
import { ApiKeyRepository } from '../../src/modules/auth/ports/api-key.repository';
import { JobRecord } from '../../src/modules/jobs/adapters/typeorm/job.record';
import { TypeOrmJobRepository } from '../../src/modules/jobs/adapters/typeorm/typeorm.job.repository';
import { draftJob, Job } from '../../src/modules/jobs/domain/job';
import { resolveJobSettings } from '../../src/modules/jobs/domain/job-settings';
import { JobRepository } from '../../src/modules/jobs/ports/job.repository';
import { TypeOrmUploadRepository } from '../../src/modules/uploads/adapters/typeorm/typeorm.upload.repository';
import { UploadRecord } from '../../src/modules/uploads/adapters/typeorm/upload.record';
import { UploadRepository } from '../../src/modules/uploads/ports/upload.repository';
import { startEmbeddedDatabase } from '../support/embedded-database';
import { TypeOrmWebhookOutbox } from '../../src/modules/webhooks/adapters/typeorm/typeorm.webhook-outbox';
import { PostgresIdempotencyStore } from '../../src/modules/idempotency/adapters/postgres/postgres.idempotency-store';
import { TypeOrmJobEventLog } from '../../src/modules/jobs/adapters/typeorm/typeorm.job-event-log';
import { TypeOrmUsageStore } from '../../src/modules/usage/adapters/typeorm/typeorm.usage-store';
import { describeIdempotencyStoreContract } from './idempotency-store.contract';
import { describeUsageStoreContract } from './usage-store.contract';
import { describeRetentionStoreContract } from './retention-store.contract';
import { TypeOrmRetentionStore } from '../../src/modules/retention/adapters/typeorm/typeorm.retention-store';
import { describeWebhookOutboxContract } from './webhook-outbox.contract';
import { describeApiKeyRepositoryContract } from './api-key-repository.contract';
import { describeCreditLedgerContract, describeJobRepositoryContract } from './jobs-and-ledger.contract';
import { createTestDatabase } from '../support/test-database';

interface Target {
  url: string;
  stop(): Promise<void>;
}

const targets: Array<[string, () => Promise<Target>]> = [
  ['the machine Postgres', async () => { const db = await createTestDatabase(); return { url: db.url, stop: db.drop }; }],
  ['the embedded Postgres', startEmbeddedDatabase],
];

function aJob(apiKeyId: string, overrides: Partial<Job> = {}): Job {
  const request = { output_format: 'webm' as const, model: 'light' as const, bg_type: 'green' as const };
  const draft = draftJob({ id: newJobId(), apiKeyId, videoUrl: 'https://example.com/v.mp4', request, settings: resolveJobSettings(request), webhookUrl: null, metadata: { order: '7' }, createdAt: new Date() });
  return { ...draft, ...overrides };
}

describe.each(targets)('repository contract on %s', (_name, start) => {
  let target: Target;
  let db: DataSource;
  let keys: ApiKeyRepository;
  let jobs: JobRepository;
  let uploads: UploadRepository;

  beforeAll(async () => {
    target = await start();
    db = await migrate(target.url);
    keys = new TypeOrmApiKeyRepository(db.getRepository(ApiKeyRecord));
    jobs = new TypeOrmJobRepository(db.getRepository(JobRecord));
    uploads = new TypeOrmUploadRepository(db.getRepository(UploadRecord));
  }, 180000);
  afterAll(async () => {
    await db?.destroy();
    await target?.stop();
  });

  const newKey = async () => {
    const issued = issueApiKey();
    return keys.create({ clientId: 'c', note: null, keyHash: issued.keyHash, fingerprint: issued.fingerprint, webhookSecret: 'whsec_dGVzdA==' });
  };
  const inTransaction = <T>(work: (scope: ReturnType<typeof scopeOf>) => Promise<T>) => db.transaction((manager) => work(scopeOf(manager)));
  const harness = { jobs: () => jobs, newOwner: async () => (await newKey()).id, inTransaction: <T>(work: (ledger: CreditLedger) => Promise<T>) => inTransaction((tx) => work(tx.get(CreditLedger))) };
  describeJobRepositoryContract(harness);
  describeCreditLedgerContract(harness);
  describeApiKeyRepositoryContract(() => keys);
  describeWebhookOutboxContract(() => new TypeOrmWebhookOutbox(db.manager), harness.newOwner);
  describeIdempotencyStoreContract(() => new PostgresIdempotencyStore(db), harness.newOwner);
  describeRetentionStoreContract({
    store: () => new TypeOrmRetentionStore(db),
    addUpload: async (createdAt) => {
      const id = newUploadId();
      await uploads.insert({ id, apiKeyId: await harness.newOwner(), storageKey: `uploads/${id}`, filename: 'a.mp4', size: 1, contentType: 'video/mp4', durationSeconds: 1, createdAt });
      return { id, key: `uploads/${id}` };
    },
    addOutput: async (completedAt) => {
      const job = aJob(await harness.newOwner(), { status: 'completed', completedAt });
      await jobs.insert({ ...job, outputKey: `outputs/${job.id}.webm` });
      return { id: job.id, key: `outputs/${job.id}.webm` };
    },
  });
  describeUsageStoreContract({
    store: () => new TypeOrmUsageStore(db),
    newOwnerWithJob: async () => {
      const owner = await harness.newOwner();
      const job = aJob(owner);
      await jobs.insert(job);
      return { owner, jobId: job.id };
    },
    events: () => new TypeOrmJobEventLog(db.manager),
    inTransaction: harness.inTransaction,
  });

  it('API keys: found by hash and fingerprint, disabled and re-enabled', async () => {
    const key = await newKey();
    expect((await keys.findByHash(key.keyHash))?.id).toBe(key.id);
    expect((await keys.findByFingerprint(key.fingerprint))?.clientId).toBe('c');
    expect((await keys.setEnabled(key.fingerprint, false))?.enabled).toBe(false);
    expect((await keys.setEnabled(key.fingerprint, true))?.enabled).toBe(true);
    expect(await keys.findByFingerprint('000000000000')).toBeNull();
  });

  it('credit ledger: grants, reserves, settles and releases, the key credits following the sum', async () => {
    const key = await newKey();
    const job = aJob(key.id);
    await jobs.insert(job);
    expect(await inTransaction((tx) => tx.get(CreditLedger).grant(key.id, 10, null))).toBe(10);
    expect(await inTransaction((tx) => tx.get(CreditLedger).reserve(key.id, job.id, 11))).toBe(false);
    expect(await inTransaction((tx) => tx.get(CreditLedger).reserve(key.id, job.id, 8))).toBe(true);
    expect(await inTransaction((tx) => tx.get(CreditLedger).settle(key.id, job.id, 5))).toBe(5);
    expect(await inTransaction((tx) => tx.get(CreditLedger).settle(key.id, job.id, 5))).toBe(5);
    await inTransaction((tx) => tx.get(CreditLedger).release(key.id, job.id));
    expect(await inTransaction((tx) => tx.get(CreditLedger).balance(key.id))).toBe(5);
    expect((await keys.findById(key.id))?.credits).toBe(5);
    expect(await inTransaction((tx) => tx.get(CreditLedger).grant(key.id, -100, null))).toBe(0);
    expect((await keys.findById(key.id))?.credits).toBe(0);
  });

  it('jobs: round-trip every field, scoped to their owner', async () => {
    const owner = await newKey();
    const stranger = await newKey();
    const job = aJob(owner.id, { webhookUrl: 'https://hooks.example.com/x' });
    await jobs.insert(job);
    const read = await jobs.findOwned(job.id, owner.id);
    expect(read).toEqual({ ...job, createdAt: expect.any(Date) });
    expect(read!.createdAt.getTime()).toBe(job.createdAt.getTime());
    expect(await jobs.findOwned(job.id, stranger.id)).toBeNull();
  });

  it('jobs: transitions are compare-and-set, so only one of two racing movers wins', async () => {
    const owner = await newKey();
    const job = aJob(owner.id);
    await jobs.insert(job);
    const results = await Promise.all([
      jobs.transition(job.id, 'created', { status: 'pending' }),
      jobs.transition(job.id, 'created', { status: 'pending' }),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await jobs.transition(job.id, 'created', { status: 'failed' })).toBeNull();
    expect((await jobs.transition(job.id, 'pending', { status: 'processing' }))?.status).toBe('processing');
    await jobs.updateProgress(job.id, 42.5);
    expect((await jobs.findById(job.id))?.progress).toBe(42.5);
  });

  it('jobs: list newest first with limit, offset, status and a total', async () => {
    const owner = await newKey();
    const base = Date.now();
    const made = [0, 1, 2, 3].map((i) => aJob(owner.id, { createdAt: new Date(base + i * 1000), status: i % 2 ? 'completed' : 'created' }));
    for (const job of made) await jobs.insert(job);
    const page = await jobs.list({ apiKeyId: owner.id, limit: 2, offset: 1 });
    expect(page.total).toBe(4);
    expect(page.items.map((job) => job.id)).toEqual([made[2].id, made[1].id]);
    const completed = await jobs.list({ apiKeyId: owner.id, status: 'completed', limit: 10, offset: 0 });
    expect(completed.items.map((job) => job.id)).toEqual([made[3].id, made[1].id]);
  });

  it('uploads: scoped to their owner', async () => {
    const owner = await newKey();
    const stranger = await newKey();
    const upload = { id: newUploadId(), apiKeyId: owner.id, storageKey: 'uploads/x', filename: 'a.mp4', size: 123, contentType: 'video/mp4', durationSeconds: 4, createdAt: new Date() };
    await uploads.insert(upload);
    expect(await uploads.findOwned(upload.id, owner.id)).toMatchObject({ filename: 'a.mp4', size: 123 });
    expect(await uploads.findOwned(upload.id, stranger.id)).toBeNull();
  });
});
