import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../../config/app-config';
import { Clock } from '../../../common/clock';
import { ObjectStorage } from '../../storage/ports/object-storage';
import { ExpiredFile, RetentionStore } from '../ports/retention-store';
import { OrphanSweep } from './orphan-sweep';

/** files read and deleted at a time; a run goes on batch after batch until none is left */
export const RETENTION_BATCH = 200;

/** what a run of retention deleted */
export interface RetentionRun {
  uploads: number;
  outputs: number;
  /** files no row needed (orphan-sweep.ts), whatever RETENTION_HOURS says */
  orphans: number;
}

/**
 * Deletes uploads and outputs older than RETENTION_HOURS. Rows are kept (marked deleted) so their
 * URLs answer 410 Gone rather than 404, and job history and billing stay intact. Then sweeps the
 * files that no row needs.
 */
@Injectable()
export class RetentionService {
  private readonly logger = new Logger(RetentionService.name);

  constructor(
    private readonly store: RetentionStore,
    private readonly storage: ObjectStorage,
    private readonly clock: Clock,
    private readonly orphans: OrphanSweep,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async purge(): Promise<RetentionRun> {
    const expired = await this.purgeExpired();
    const orphans = await this.orphans.sweep();
    if (orphans) this.logger.log(`retention deleted ${orphans} stored files that no upload or job needs`);
    return { ...expired, orphans };
  }

  private async purgeExpired(): Promise<{ uploads: number; outputs: number }> {
    const hours = this.config.env.RETENTION_HOURS;
    if (hours <= 0) return { uploads: 0, outputs: 0 };
    const cutoff = new Date(this.clock.now().getTime() - hours * 3600_000);
    const uploads = await this.purgeAll(() => this.store.expiredUploads(cutoff, RETENTION_BATCH), (file) => this.deleteUpload(file));
    const outputs = await this.purgeAll(() => this.store.expiredOutputs(cutoff, RETENTION_BATCH), (file) => this.deleteOutput(file));
    if (uploads || outputs) this.logger.log(`retention deleted ${uploads} uploads and ${outputs} outputs older than ${hours} h`);
    return { uploads, outputs };
  }

  /** An upload is claimed before its file goes: one a job has started reading since it was found is left (false). */
  private async deleteUpload(file: ExpiredFile): Promise<boolean> {
    if (!(await this.store.claimUpload(file.id))) return false;
    await this.deleteOrTakeBack(file.key, () => this.store.unclaimUpload(file.id));
    return true;
  }

  /**
   * An output is marked deleted before its file goes: deleted first, the job's view handed out a
   * signed URL to a file already gone (S3's own 404, not the API's 410) until the mark was written.
   */
  private async deleteOutput(file: ExpiredFile): Promise<boolean> {
    await this.store.markOutputDeleted(file.id);
    await this.deleteOrTakeBack(file.key, () => this.store.unmarkOutputDeleted(file.id));
    return true;
  }

  /** deletes a file whose row is already marked; a file that stays has its mark taken back, for a later run */
  private async deleteOrTakeBack(key: string, takeBack: () => Promise<void>): Promise<void> {
    try {
      await this.storage.delete(key);
    } catch (error) {
      await takeBack();
      throw error;
    }
  }

  /** Every expired file, oldest first, a batch at a time: one batch a run fell behind past 200 files an interval. */
  private async purgeAll(nextBatch: () => Promise<ExpiredFile[]>, purge: (file: ExpiredFile) => Promise<boolean>): Promise<number> {
    let purged = 0;
    for (;;) {
      const files = await nextBatch();
      for (const file of files) if (await purge(file)) purged += 1;
      if (files.length < RETENTION_BATCH) return purged;
    }
  }
}
