import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../../common/clock';
import { STORAGE_FOLDERS, storageKeyOwner, StorageKeyOwner } from '../../../common/storage-keys';
import { ObjectStorage } from '../../storage/ports/object-storage';
import { JobFiles, RetentionStore } from '../ports/retention-store';

/**
 * A stored file is looked at only once it is this old: an upload's body is stored just before its
 * row is written, and an S3 object's time is when its upload began, which for a large upload over a
 * slow link is long before its row.
 */
export const ORPHAN_MIN_AGE_HOURS = 24;

/** files checked against their rows at a time */
const SWEEP_BATCH = 200;
/**
 * An upload's body that no row names is removed only while such files are few in a batch (its row
 * was never written): many are not orphans but another deployment's in a shared bucket, or the
 * files of the right database while DATABASE_URL names the wrong one, and all of them are kept. A
 * job's file that no row names is always kept: a job's row is written before any of its files.
 */
const ROWLESS_TOLERATED = { atLeast: 5, share: 0.1 };

interface Candidate {
  key: string;
  owner: StorageKeyOwner;
}

/**
 * Removes stored files that no row needs: a chunk or a fetched input of a job that ended (its worker
 * died before cleaning up), an output of a job that failed after storing it, an upload's body whose
 * row was never written (a few) or was marked deleted before the file went, and what writes cut
 * short left.
 * A file is needed while its upload's row is not deleted, while its job runs, and, for a job's
 * output, while the job names it and retention has not deleted it. A key the layout does not make
 * (common/storage-keys.ts) is never touched.
 */
@Injectable()
export class OrphanSweep {
  private readonly logger = new Logger(OrphanSweep.name);

  constructor(
    private readonly store: RetentionStore,
    private readonly storage: ObjectStorage,
    private readonly clock: Clock,
  ) {}

  /** how many files went */
  async sweep(): Promise<number> {
    const before = new Date(this.clock.now().getTime() - ORPHAN_MIN_AGE_HOURS * 3600_000);
    let removed = 0;
    for (const folder of STORAGE_FOLDERS) {
      removed += await this.storage.removeInterruptedWrites(folder, before);
      let batch: Candidate[] = [];
      for await (const object of this.storage.list(folder)) {
        const owner = storageKeyOwner(object.key);
        if (!owner || object.modifiedAt >= before) continue;
        batch.push({ key: object.key, owner });
        if (batch.length < SWEEP_BATCH) continue;
        removed += await this.removeUnneeded(batch);
        batch = [];
      }
      removed += await this.removeUnneeded(batch);
    }
    return removed;
  }

  private async removeUnneeded(batch: Candidate[]): Promise<number> {
    if (!batch.length) return 0;
    const uploadIds = batch.flatMap(({ owner }) => ('upload' in owner ? [owner.upload] : []));
    const jobIds = [...new Set(batch.flatMap(({ owner }) => ('job' in owner ? [owner.job] : [])))];
    const [uploadRows, jobs] = await Promise.all([uploadIds.length ? this.store.uploadRows(uploadIds) : new Map<string, { deleted: boolean }>(), jobIds.length ? this.store.jobFiles(jobIds) : new Map<string, JobFiles>()]);
    const known = ({ owner }: Candidate): boolean => ('upload' in owner ? uploadRows.has(owner.upload) : jobs.has(owner.job));
    const needed = ({ key, owner }: Candidate): boolean => {
      if ('upload' in owner) return !uploadRows.get(owner.upload)!.deleted;
      const job = jobs.get(owner.job)!;
      return job.running || (owner.output && job.outputKey === key);
    };
    const rowless = batch.filter((candidate) => !known(candidate));
    const rowlessRemoved = rowless.length <= Math.max(ROWLESS_TOLERATED.atLeast, batch.length * ROWLESS_TOLERATED.share);
    if (!rowlessRemoved) this.logger.warn(`${rowless.length} of ${batch.length} stored files name jobs or uploads this database has no row for (${rowless[0].key}, ...): kept (another deployment's files in the same storage, or the wrong DATABASE_URL?)`);
    const orphans = batch.filter((candidate) => (known(candidate) ? !needed(candidate) : rowlessRemoved && 'upload' in candidate.owner));
    for (const { key } of orphans) await this.storage.delete(key);
    return orphans.length;
  }
}
