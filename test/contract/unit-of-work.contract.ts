import { randomUUID } from 'node:crypto';
import { newUploadId } from '../../src/common/ids';
import { UnitOfWork } from '../../src/common/unit-of-work';
import { issueApiKey } from '../../src/modules/auth/domain/api-key';
import { ApiKeyRepository } from '../../src/modules/auth/ports/api-key.repository';
import { CreditLedger } from '../../src/modules/billing/ports/credit-ledger';
import { JobRepository } from '../../src/modules/jobs/ports/job.repository';
import { UploadRepository } from '../../src/modules/uploads/ports/upload.repository';
import { WebhookOutbox } from '../../src/modules/webhooks/ports/webhook-outbox';
import { aJob } from './jobs-and-ledger.contract';

const newKey = () => {
  const issued = issueApiKey();
  return { clientId: 'c', note: null, keyHash: issued.keyHash, fingerprint: issued.fingerprint, webhookSecret: 'whsec_dGVzdA==' };
};

/** What every UnitOfWork must do with the ports of its scope (TypeORM in repositories.contract.spec.ts, in memory in in-memory.contract.spec.ts). */
export function describeUnitOfWorkContract(unitOfWork: () => UnitOfWork): void {
  describe('UnitOfWork contract', () => {
    it('a unit of work that throws keeps none of its writes to keys, jobs, the ledger, uploads and the outbox; one that returns keeps them all', async () => {
      const owner = await unitOfWork().run((tx) => tx.get(ApiKeyRepository).create(newKey()));
      const stranger = newKey();
      const job = aJob(owner.id);
      const upload = { id: newUploadId(), apiKeyId: owner.id, storageKey: 'uploads/x', filename: 'a.mp4', size: 1, contentType: 'video/mp4', durationSeconds: 1, createdAt: new Date() };
      const deliveryId = `msg_${randomUUID()}`;
      const writeAll = async (tx: Parameters<Parameters<UnitOfWork['run']>[0]>[0]) => {
        await tx.get(ApiKeyRepository).create(stranger);
        await tx.get(ApiKeyRepository).setEnabled(owner.fingerprint, false);
        await tx.get(JobRepository).insert(job);
        await tx.get(CreditLedger).grant(owner.id, 7, null);
        await tx.get(UploadRepository).insert(upload);
        await tx.get(WebhookOutbox).add({ id: deliveryId, apiKeyId: owner.id, jobId: job.id, event: 'job.started', url: 'https://hooks.example.com/in', body: '{}' });
      };
      const readAll = () =>
        unitOfWork().run(async (tx) => ({
          stranger: (await tx.get(ApiKeyRepository).findByHash(stranger.keyHash)) !== null,
          ownerEnabled: (await tx.get(ApiKeyRepository).findById(owner.id))?.enabled,
          job: (await tx.get(JobRepository).findById(job.id)) !== null,
          balance: await tx.get(CreditLedger).balance(owner.id),
          upload: (await tx.get(UploadRepository).findOwned(upload.id, owner.id)) !== null,
          delivery: (await tx.get(WebhookOutbox).find(deliveryId)) !== null,
        }));

      await expect(
        unitOfWork().run(async (tx) => {
          await writeAll(tx);
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(await readAll()).toEqual({ stranger: false, ownerEnabled: true, job: false, balance: 0, upload: false, delivery: false });

      await unitOfWork().run(writeAll);
      expect(await readAll()).toEqual({ stranger: true, ownerEnabled: false, job: true, balance: 7, upload: true, delivery: true });
    });
  });
}
