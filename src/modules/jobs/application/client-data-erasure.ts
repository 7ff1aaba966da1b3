import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../../common/clock';
import { storageKeys } from '../../../common/storage-keys';
import { UnitOfWork } from '../../../common/unit-of-work';
import { ApiKeyRepository } from '../../auth/ports/api-key.repository';
import { ErasedKeyData, KeyDataEraser } from '../../auth/ports/key-data-eraser';
import { IdempotencyStore } from '../../idempotency/ports/idempotency-store';
import { ObjectStorage } from '../../storage/ports/object-storage';
import { UploadRepository } from '../../uploads/ports/upload.repository';
import { WebhookOutbox } from '../../webhooks/ports/webhook-outbox';
import { Job } from '../domain/job';
import { JobRepository } from '../ports/job.repository';
import { JobLifecycle } from './job-lifecycle';

/** stored files deleted at once */
const DELETES_AT_ONCE = 8;

/**
 * Erases a key's data (KeyDataEraser). Every write of a key's data holds the key's row against a
 * disable (ApiKeyRepository.lockDisabled), so once the disable has committed nothing of the key's is
 * written any more, and one pass finds it all:
 * - in the transaction that disables the key, its pending and processing jobs end, as a cancel ends
 *   them (reserves released), announced to nobody; ended after the disable, the watch of a disabled
 *   key's jobs could end them first and send job.failed, with the content being erased;
 * - in one transaction its webhook deliveries go (first: a delivery's attempt locks the delivery, then
 *   its job), its jobs lose their client content and their outputs are marked deleted, and its
 *   uploads are marked deleted;
 * - its idempotent responses go;
 * - last the stored files: uploads, outputs, and the inputs and chunks of the jobs it ended. Every
 *   file is tried; a failure is thrown after, and the rows an erasure run again finds name the rest.
 * A worker still finishing an ended job may store a file after this; retention's orphan sweep
 * removes it (its job has ended).
 */
@Injectable()
export class ClientDataErasure extends KeyDataEraser {
  private readonly logger = new Logger(ClientDataErasure.name);

  constructor(
    private readonly lifecycle: JobLifecycle,
    private readonly unitOfWork: UnitOfWork,
    private readonly idempotency: IdempotencyStore,
    private readonly storage: ObjectStorage,
    private readonly clock: Clock,
  ) {
    super();
  }

  async erase(key: { id: string; fingerprint: string }): Promise<ErasedKeyData> {
    const apiKeyId = key.id;
    const ended = await this.unitOfWork.run(async (tx) => {
      await tx.get(ApiKeyRepository).setEnabled(key.fingerprint, false);
      const active = await tx.get(JobRepository).activeOf(apiKeyId);
      for (const job of active) await this.lifecycle.endForErasure(tx, job);
      return active;
    });
    const erased = await this.eraseRows(apiKeyId);
    await this.idempotency.forgetApiKey(apiKeyId);
    const files = [...new Set([...erased.files, ...(await this.filesOfEnded(ended))])];
    await this.deleteAll(apiKeyId, files);
    return { jobsEnded: ended.length, jobs: erased.jobs, uploads: erased.uploads, files: files.length };
  }

  private eraseRows(apiKeyId: string): Promise<{ jobs: number; uploads: number; files: string[] }> {
    const now = this.clock.now();
    return this.unitOfWork.run(async (tx) => {
      await tx.get(WebhookOutbox).forgetKey(apiKeyId);
      const jobs = await tx.get(JobRepository).eraseClientContent(apiKeyId, now);
      const uploads = await tx.get(UploadRepository).eraseClientContent(apiKeyId, now);
      return { jobs: jobs.jobs, uploads: uploads.uploads, files: [...uploads.storageKeys, ...jobs.outputKeys] };
    });
  }

  /** what a job ended mid-run may have stored besides its output: its fetched inputs and its chunks */
  private async filesOfEnded(ended: readonly Job[]): Promise<string[]> {
    const files: string[] = [];
    for (const job of ended) {
      files.push(storageKeys.fetchedVideo(job.id), storageKeys.fetchedBackground(job.id));
      for await (const chunk of this.storage.list(storageKeys.chunksOf(job.id))) files.push(chunk.key);
    }
    return files;
  }

  private async deleteAll(apiKeyId: string, files: readonly string[]): Promise<void> {
    const failures: unknown[] = [];
    let next = 0;
    const deleter = async (): Promise<void> => {
      while (next < files.length) {
        const key = files[next];
        next += 1;
        await this.storage.delete(key).catch((error: unknown) => failures.push(error));
      }
    };
    await Promise.all(Array.from({ length: DELETES_AT_ONCE }, deleter));
    if (!failures.length) return;
    this.logger.warn(`erasure of key ${apiKeyId}: ${failures.length} of ${files.length} stored files could not be deleted; run it again`);
    throw failures[0];
  }
}
