import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { TERMINAL_STATUSES } from '../../../../contract/job-status';
import { ExpiredFile, JobFiles, RetentionStore } from '../../ports/retention-store';

/**
 * A job reads an upload by its URL, which ends in /v1/uploads/{id} (UploadsService.videoUrlOf). The
 * upload's id is taken from the job's URL alone, by the expression of the index jobs_reading_upload
 * (migration IndexesAtScale1764800000000), so each upload's check is one index lookup: comparing an
 * expression of both tables read the whole of a jobs index for every upload.
 */
const NOT_READ_BY_A_JOB = `NOT EXISTS (SELECT 1 FROM jobs j WHERE j.status IN ('pending', 'processing') AND substring(j.video_url from '/v1/uploads/(vid_[0-9A-Za-z]{26})$') = u.id)`;

/** The retention queries on Postgres: uploads by created_at, outputs by their job's completed_at. */
@Injectable()
export class TypeOrmRetentionStore extends RetentionStore {
  constructor(@InjectDataSource() private readonly db: DataSource) {
    super();
  }

  expiredUploads(cutoff: Date, limit: number): Promise<ExpiredFile[]> {
    return this.db.query(
      `SELECT u.id, u.storage_key AS key FROM uploads u
        WHERE u.deleted_at IS NULL AND u.created_at < $1 AND ${NOT_READ_BY_A_JOB}
        ORDER BY u.created_at LIMIT $2`,
      [cutoff, limit],
    );
  }

  /**
   * The upload's row is locked first (a start holds it FOR SHARE until its commit), and the jobs
   * reading it are looked for by the next statement, which sees a start that committed meanwhile:
   * in one statement the check ran on a snapshot without the start, and the file was deleted under
   * a job accepted a moment later.
   */
  async claimUpload(id: string): Promise<boolean> {
    return this.db.transaction(async (manager) => {
      await manager.query(`SELECT id FROM uploads WHERE id = $1 FOR UPDATE`, [id]);
      // an UPDATE answers [rows, how many it changed]
      const [, claimed] = (await manager.query(`UPDATE uploads u SET deleted_at = now() WHERE u.id = $1 AND u.deleted_at IS NULL AND ${NOT_READ_BY_A_JOB}`, [id])) as [unknown[], number];
      return claimed > 0;
    });
  }

  async unclaimUpload(id: string): Promise<void> {
    await this.db.query(`UPDATE uploads SET deleted_at = NULL WHERE id = $1`, [id]);
  }

  expiredOutputs(cutoff: Date, limit: number): Promise<ExpiredFile[]> {
    return this.db.query(`SELECT id, output_key AS key FROM jobs WHERE output_key IS NOT NULL AND output_deleted_at IS NULL AND completed_at < $1 ORDER BY completed_at LIMIT $2`, [cutoff, limit]);
  }

  async markOutputDeleted(id: string): Promise<void> {
    await this.db.query(`UPDATE jobs SET output_deleted_at = now() WHERE id = $1`, [id]);
  }

  async unmarkOutputDeleted(id: string): Promise<void> {
    await this.db.query(`UPDATE jobs SET output_deleted_at = NULL WHERE id = $1`, [id]);
  }

  async uploadRows(ids: readonly string[]): Promise<Map<string, { deleted: boolean }>> {
    const rows: Array<{ id: string; deleted: boolean }> = await this.db.query(`SELECT id, deleted_at IS NOT NULL AS deleted FROM uploads WHERE id = ANY($1)`, [ids]);
    return new Map(rows.map(({ id, deleted }) => [id, { deleted }]));
  }

  async jobFiles(ids: readonly string[]): Promise<Map<string, JobFiles>> {
    const rows: Array<{ id: string } & JobFiles> = await this.db.query(
      `SELECT id, status <> ALL($2) AS running, CASE WHEN output_deleted_at IS NULL THEN output_key END AS "outputKey" FROM jobs WHERE id = ANY($1)`,
      [ids, TERMINAL_STATUSES],
    );
    return new Map(rows.map(({ id, running, outputKey }) => [id, { running, outputKey }]));
  }
}
