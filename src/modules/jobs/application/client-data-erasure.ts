import { Injectable } from '@nestjs/common';
import { Clock } from '../../../common/clock';
import { UnitOfWork } from '../../../common/unit-of-work';
import { ErasedKeyData, KeyDataEraser } from '../../auth/ports/key-data-eraser';
import { IdempotencyStore } from '../../idempotency/ports/idempotency-store';
import { ObjectStorage } from '../../storage/ports/object-storage';
import { UploadRepository } from '../../uploads/ports/upload.repository';
import { WebhookOutbox } from '../../webhooks/ports/webhook-outbox';
import { JobRepository } from '../ports/job.repository';
import { JobLifecycle } from './job-lifecycle';

/**
 * Passes at most: a request that authenticated just before the key was disabled can still start a
 * job after a pass has ended the key's work; the next pass ends and erases it too.
 */
const ERASURE_PASSES = 3;

/**
 * Erases a disabled key's data (KeyDataEraser): its pending and processing jobs end first, as a
 * cancel ends them (reserves released); then, in one transaction, its jobs lose their client content
 * and their outputs are marked deleted, its uploads are marked deleted and its webhook deliveries
 * go; then its idempotent responses, and last the stored files, so that a storage failure leaves
 * rows that an erasure run again finds. A worker still finishing an ended job may store a file
 * after this; the orphan sweep removes it (its job has ended).
 */
@Injectable()
export class ClientDataErasure extends KeyDataEraser {
  constructor(
    private readonly jobs: JobRepository,
    private readonly lifecycle: JobLifecycle,
    private readonly unitOfWork: UnitOfWork,
    private readonly idempotency: IdempotencyStore,
    private readonly storage: ObjectStorage,
    private readonly clock: Clock,
  ) {
    super();
  }

  async erase(apiKeyId: string): Promise<ErasedKeyData> {
    let jobsEnded = 0;
    let erased = { jobs: 0, uploads: 0, files: [] as string[] };
    for (let pass = 0; pass < ERASURE_PASSES; pass += 1) {
      for (const job of await this.jobs.activeOf(apiKeyId)) {
        await this.lifecycle.fail(job, 'canceled', "Canceled: the API key's data was erased");
        jobsEnded += 1;
      }
      erased = await this.eraseRows(apiKeyId);
      if (!(await this.jobs.activeOf(apiKeyId)).length) break;
    }
    await this.idempotency.forgetApiKey(apiKeyId);
    const files = [...new Set(erased.files)];
    for (const key of files) await this.storage.delete(key);
    return { jobsEnded, jobs: erased.jobs, uploads: erased.uploads, files: files.length };
  }

  private eraseRows(apiKeyId: string): Promise<{ jobs: number; uploads: number; files: string[] }> {
    const now = this.clock.now();
    return this.unitOfWork.run(async (tx) => {
      const jobs = await tx.get(JobRepository).eraseClientContent(apiKeyId, now);
      const uploads = await tx.get(UploadRepository).eraseClientContent(apiKeyId, now);
      await tx.get(WebhookOutbox).forgetKey(apiKeyId);
      return { jobs: jobs.jobs, uploads: uploads.uploads, files: [...uploads.storageKeys, ...jobs.outputKeys] };
    });
  }
}
