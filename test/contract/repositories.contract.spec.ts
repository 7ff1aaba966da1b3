import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { newUploadId } from '../../src/common/ids';
import { migrate } from '../../src/composition/data-source';
import { CreditLedger } from '../../src/modules/billing/ports/credit-ledger';
import { JobEventLog } from '../../src/modules/jobs/ports/job-event-log';
import { typeOrmScopeOf as scopeOf } from '../../src/composition/typeorm.transaction-scope';
import { ApiKeyRecord } from '../../src/modules/auth/adapters/typeorm/api-key.record';
import { TypeOrmApiKeyRepository } from '../../src/modules/auth/adapters/typeorm/typeorm.api-key.repository';
import { issueApiKey } from '../../src/modules/auth/domain/api-key';
import { ApiKeyRepository } from '../../src/modules/auth/ports/api-key.repository';
import { JobRecord } from '../../src/modules/jobs/adapters/typeorm/job.record';
import { TypeOrmJobRepository } from '../../src/modules/jobs/adapters/typeorm/typeorm.job.repository';
import { JobRepository } from '../../src/modules/jobs/ports/job.repository';
import { TypeOrmUploadRepository } from '../../src/modules/uploads/adapters/typeorm/typeorm.upload.repository';
import { UploadRecord } from '../../src/modules/uploads/adapters/typeorm/upload.record';
import { UploadRepository } from '../../src/modules/uploads/ports/upload.repository';
import { startEmbeddedDatabase } from '../support/embedded-database';
import { TypeOrmWebhookOutbox } from '../../src/modules/webhooks/adapters/typeorm/typeorm.webhook-outbox';
import { PostgresIdempotencyStore } from '../../src/modules/idempotency/adapters/postgres/postgres.idempotency-store';
import { ABANDONED_AFTER_SECONDS } from '../../src/modules/idempotency/ports/idempotency-store';
import { TypeOrmJobEventLog } from '../../src/modules/jobs/adapters/typeorm/typeorm.job-event-log';
import { TypeOrmUsageStore } from '../../src/modules/usage/adapters/typeorm/typeorm.usage-store';
import { describeIdempotencyStoreContract } from './idempotency-store.contract';
import { describeUnitOfWorkContract } from './unit-of-work.contract';
import { TypeOrmUnitOfWork } from '../../src/infrastructure/database/typeorm.unit-of-work';
import { describeUsageStoreContract } from './usage-store.contract';
import { describeUploadRepositoryContract } from './upload-repository.contract';
import { describeRetentionStoreContract } from './retention-store.contract';
import { TypeOrmRetentionStore } from '../../src/modules/retention/adapters/typeorm/typeorm.retention-store';
import { describeWebhookOutboxContract, outboxJobs } from './webhook-outbox.contract';
import { describeApiKeyRepositoryContract } from './api-key-repository.contract';
import { aJob, describeCreditLedgerContract, describeJobRepositoryContract } from './jobs-and-ledger.contract';
import { createTestDatabase } from '../support/test-database';
import { describeRemoteRunRegistryContract } from './remote-run-registry.contract';
import { TypeOrmRemoteRunRegistry } from '../../src/modules/worker-gateway/adapters/typeorm/typeorm.remote-run-registry';

interface Target {
  url: string;
  stop(): Promise<void>;
}

const targets: Array<[string, () => Promise<Target>]> = [
  ['the machine Postgres', async () => { const db = await createTestDatabase(); return { url: db.url, stop: db.drop }; }],
  ['the embedded Postgres', startEmbeddedDatabase],
];

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
  describeWebhookOutboxContract(() => new TypeOrmWebhookOutbox(db.manager), harness.newOwner, outboxJobs(() => jobs));
  describeUnitOfWorkContract(() => new TypeOrmUnitOfWork(db, scopeOf));
  describeIdempotencyStoreContract(
    () => new PostgresIdempotencyStore(db.manager),
    harness.newOwner,
    async (scope) => {
      await db.query(`UPDATE idempotency_keys SET locked_at = now() - ($3 + 1) * interval '1 second' WHERE api_key_id = $1 AND idempotency_key = $2`, [scope.apiKeyId, scope.key, ABANDONED_AFTER_SECONDS]);
    },
  );
  describeUploadRepositoryContract(() => uploads, harness.newOwner);
  describeRemoteRunRegistryContract(() => new TypeOrmRemoteRunRegistry(db));
  describeRetentionStoreContract({
    store: () => new TypeOrmRetentionStore(db),
    addUpload: async (createdAt) => {
      const id = newUploadId();
      await uploads.insert({ id, apiKeyId: await harness.newOwner(), storageKey: `uploads/${id}`, filename: 'a.mp4', size: 1, contentType: 'video/mp4', durationSeconds: 1, createdAt });
      return { id, key: `uploads/${id}` };
    },
    addReadingJob: async (uploadId, status) => {
      const job = aJob(await harness.newOwner(), { status, videoUrl: `http://localhost:3000/v1/uploads/${uploadId}` });
      await jobs.insert(job);
      return { end: async () => void (await db.query(`UPDATE jobs SET status = 'failed' WHERE id = $1`, [job.id])) };
    },
    addOutput: async (completedAt) => {
      const job = aJob(await harness.newOwner(), { status: 'completed', completedAt });
      await jobs.insert({ ...job, outputKey: `outputs/${job.id}.webm` });
      return { id: job.id, key: `outputs/${job.id}.webm` };
    },
    addJob: async (status) => {
      const job = aJob(await harness.newOwner(), { status });
      await jobs.insert(job);
      return { id: job.id, end: async () => void (await db.query(`UPDATE jobs SET status = 'failed' WHERE id = $1`, [job.id])) };
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

  // Postgres only: the api_keys.credits column follows the ledger's sum.
  it("idempotency: a key taken over by a process of the release before (which leaves the note alone) hands no later claim the earlier claim's job", async () => {
    const store = new PostgresIdempotencyStore(db.manager);
    const scope = { apiKeyId: (await newKey()).id, key: 'version-skew' };
    const claim = await store.claim(scope, 'fp-a', 3600);
    if (claim.kind !== 'claimed') throw new Error(claim.kind);
    await store.noteCreated({ scope, claimId: claim.claimId }, 'job_of_request_a');
    // the release before's takeover: a new claim id and fingerprint, the note left as it was
    await db.query(`UPDATE idempotency_keys SET claim_id = gen_random_uuid(), fingerprint = 'fp-b', locked_at = now() - interval '1 hour' WHERE api_key_id = $1 AND idempotency_key = $2`, [scope.apiKeyId, scope.key]);
    expect(await store.claim(scope, 'fp-b', 3600)).not.toHaveProperty('createdBefore');
  });

  it('credit ledger: the key\'s credits column follows the sum of the ledger', async () => {
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

  // Postgres only: the hold is a row lock.
  it("api keys: a write holding the key (lockDisabled) keeps a disable waiting until it commits; one after the disable finds the key disabled", async () => {
    const key = await newKey();
    let commit!: () => void;
    const committing = new Promise<void>((resolve) => (commit = resolve));
    let held!: () => void;
    const holding = new Promise<void>((resolve) => (held = resolve));
    const writer = inTransaction(async (tx) => {
      const disabled = await tx.get(ApiKeyRepository).lockDisabled(key.id);
      held();
      await committing;
      return disabled;
    });
    await holding;
    let disabledAt = 0;
    const disabling = keys.setEnabled(key.fingerprint, false).then(() => (disabledAt = Date.now()));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(disabledAt).toBe(0);
    const committedAt = Date.now();
    commit();
    expect(await writer).toBe(false);
    await disabling;
    expect(disabledAt).toBeGreaterThanOrEqual(committedAt);
    expect(await inTransaction((tx) => tx.get(ApiKeyRepository).lockDisabled(key.id))).toBe(true);
  });

  // Postgres only: readers beside writers in their own transactions.
  it("usage: a summary read while jobs complete counts each completed job with its charge (one snapshot), never the charge alone", async () => {
    const owner = (await newKey()).id;
    await inTransaction((tx) => tx.get(CreditLedger).grant(owner, 10_000, null));
    const jobIds = Array.from({ length: 30 }, () => `job_${randomUUID()}`);
    for (const jobId of jobIds) await inTransaction((tx) => tx.get(CreditLedger).reserve(owner, jobId, 10));
    let completing = true;
    // as a completion commits them: the charge and the completed event in one transaction
    const completions = (async () => {
      for (const jobId of jobIds) {
        await inTransaction(async (tx) => {
          await tx.get(CreditLedger).lock(owner);
          await tx.get(CreditLedger).settle(owner, jobId, 10);
          await tx.get(JobEventLog).record({ apiKeyId: owner, jobId, kind: 'completed', seconds: 1, credits: 10 });
        });
      }
      completing = false;
    })();
    const torn: string[] = [];
    const store = new TypeOrmUsageStore(db);
    while (completing) {
      const summaries = await Promise.all([0, 1, 2].map(() => store.dailyCounters(owner, new Date(Date.now() - 3600_000))));
      for (const rows of summaries) {
        const completed = rows.reduce((sum, row) => sum + (row.completed_jobs ?? 0), 0);
        const credits = rows.reduce((sum, row) => sum + (row.credits_used ?? 0), 0);
        if (credits !== completed * 10) torn.push(`${completed} completed, ${credits} credits`);
      }
    }
    await completions;
    expect(torn).toEqual([]);
  });
});
