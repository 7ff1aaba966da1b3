import { randomUUID } from 'node:crypto';
import { InMemoryUnitOfWork } from '../../src/common/in-memory.unit-of-work';
import { PortToken } from '../../src/common/unit-of-work';
import { InMemoryCreditLedger } from '../../src/modules/billing/adapters/in-memory/in-memory.credit-ledger';
import { CreditLedger } from '../../src/modules/billing/ports/credit-ledger';
import { InMemoryJobRepository } from '../../src/modules/jobs/adapters/in-memory/in-memory.job.repository';
import { JobRepository } from '../../src/modules/jobs/ports/job.repository';
import { InMemoryApiKeyRepository } from '../../src/modules/auth/adapters/in-memory/in-memory.api-key.repository';
import { InMemoryWebhookOutbox } from '../../src/modules/webhooks/adapters/in-memory/in-memory.webhook-outbox';
import { InMemoryIdempotencyStore } from '../../src/modules/idempotency/adapters/in-memory/in-memory.idempotency-store';
import { ABANDONED_AFTER_SECONDS } from '../../src/modules/idempotency/ports/idempotency-store';
import { InMemoryJobEventLog } from '../../src/modules/jobs/adapters/in-memory/in-memory.job-event-log';
import { InMemoryUsageStore } from '../../src/modules/usage/adapters/in-memory/in-memory.usage-store';
import { describeIdempotencyStoreContract } from './idempotency-store.contract';
import { describeUsageStoreContract } from './usage-store.contract';
import { describeUploadRepositoryContract } from './upload-repository.contract';
import { InMemoryUploadRepository } from '../../src/modules/uploads/adapters/in-memory/in-memory.upload.repository';
import { describeRetentionStoreContract } from './retention-store.contract';
import { InMemoryRetentionStore } from '../../src/modules/retention/adapters/in-memory/in-memory.retention-store';
import { describeWebhookOutboxContract, outboxJobs } from './webhook-outbox.contract';
import { describeUnitOfWorkContract } from './unit-of-work.contract';
import { ApiKeyRepository } from '../../src/modules/auth/ports/api-key.repository';
import { UploadRepository } from '../../src/modules/uploads/ports/upload.repository';
import { WebhookOutbox } from '../../src/modules/webhooks/ports/webhook-outbox';
import { describeApiKeyRepositoryContract } from './api-key-repository.contract';
import { describeCreditLedgerContract, describeJobRepositoryContract } from './jobs-and-ledger.contract';
import { describeRemoteRunRegistryContract } from './remote-run-registry.contract';
import { InMemoryRemoteRunRegistry } from '../../src/modules/worker-gateway/adapters/in-memory/in-memory.remote-run-registry';

/** The in-memory adapters against the same contracts as the TypeORM ones (repositories.contract.spec.ts). */
describe('in-memory adapters', () => {
  const jobs = new InMemoryJobRepository();
  const ledger = new InMemoryCreditLedger();
  const unitOfWork = new InMemoryUnitOfWork(new Map<PortToken<unknown>, unknown>([[JobRepository, jobs], [CreditLedger, ledger]]));
  const harness = {
    jobs: () => jobs,
    newOwner: async () => `key_${randomUUID()}`,
    inTransaction: <T>(work: (scoped: CreditLedger) => Promise<T>) => unitOfWork.run((tx) => work(tx.get(CreditLedger))),
  };

  describeJobRepositoryContract(harness);
  describeCreditLedgerContract(harness);
  const keys = new InMemoryApiKeyRepository();
  describeApiKeyRepositoryContract(() => keys);
  const outbox = new InMemoryWebhookOutbox(undefined, (jobId, event, state) => jobs.recordWebhookEvent(jobId, event, state));
  describeWebhookOutboxContract(() => outbox, harness.newOwner, outboxJobs(() => jobs));
  const remoteRuns = new InMemoryRemoteRunRegistry();
  describeRemoteRunRegistryContract(() => remoteRuns);
  const retention = new InMemoryRetentionStore();
  describeRetentionStoreContract({
    store: () => retention,
    addUpload: async (createdAt) => {
      const id = `vid_${randomUUID()}`;
      retention.addUpload(id, `uploads/${id}`, createdAt);
      return { id, key: `uploads/${id}` };
    },
    addReadingJob: async (uploadId) => {
      const reader = retention.addReader(uploadId);
      return { end: async () => reader.end() };
    },
    addOutput: async (completedAt) => {
      const id = `job_${randomUUID()}`;
      retention.addOutput(id, `outputs/${id}.webm`, completedAt);
      return { id, key: `outputs/${id}.webm` };
    },
    addJob: async () => {
      const id = `job_${randomUUID()}`;
      const job = retention.addJob(id);
      return { id, end: async () => job.end() };
    },
  });
  const uploadRows = new InMemoryUploadRepository();
  describeUploadRepositoryContract(() => uploadRows, harness.newOwner);
  // the store's clock runs on from the system's, moved on past ABANDONED_AFTER_SECONDS to abandon a claim
  let idempotencyClockShiftMs = 0;
  const idempotency = new InMemoryIdempotencyStore({ now: () => new Date(Date.now() + idempotencyClockShiftMs) });
  describeIdempotencyStoreContract(() => idempotency, harness.newOwner, async () => {
    idempotencyClockShiftMs += (ABANDONED_AFTER_SECONDS + 1) * 1000;
  });
  const events = new InMemoryJobEventLog();
  const usage = new InMemoryUsageStore(events, ledger);
  describeUsageStoreContract({
    store: () => usage,
    newOwnerWithJob: async () => ({ owner: await harness.newOwner(), jobId: `job_${randomUUID()}` }),
    events: () => events,
    inTransaction: harness.inTransaction,
  });

  const everyTransactionalPort = new InMemoryUnitOfWork(
    new Map<PortToken<unknown>, unknown>([
      [ApiKeyRepository, new InMemoryApiKeyRepository()],
      [JobRepository, new InMemoryJobRepository()],
      [CreditLedger, new InMemoryCreditLedger()],
      [UploadRepository, new InMemoryUploadRepository()],
      [WebhookOutbox, new InMemoryWebhookOutbox()],
    ]),
  );
  describeUnitOfWorkContract(() => everyTransactionalPort);

  it('a transaction that throws leaves the adapters as it found them', async () => {
    const owner = await harness.newOwner();
    await harness.inTransaction((scoped) => scoped.grant(owner, 5, null));
    await expect(harness.inTransaction(async (scoped) => { await scoped.grant(owner, 7, null); throw new Error('boom'); })).rejects.toThrow('boom');
    expect(await ledger.balance(owner)).toBe(5);
  });
});
