import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { Clock } from '../../common/clock';
import { ObjectStorage } from '../storage/ports/object-storage';

const BATCH = 200;

/**
 * Deletes uploads and outputs older than RETENTION_HOURS. Rows are kept (marked deleted) so their
 * URLs answer 410 Gone rather than 404, and job history and billing stay intact.
 */
@Injectable()
export class RetentionService {
  private readonly logger = new Logger(RetentionService.name);

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly storage: ObjectStorage,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async purge(): Promise<{ uploads: number; outputs: number }> {
    const hours = this.config.env.RETENTION_HOURS;
    if (hours <= 0) return { uploads: 0, outputs: 0 };
    const cutoff = new Date(this.clock.now().getTime() - hours * 3600_000);
    const uploads = await this.purgeRows(`SELECT id, storage_key AS key FROM uploads WHERE deleted_at IS NULL AND created_at < $1 LIMIT ${BATCH}`, `UPDATE uploads SET deleted_at = now() WHERE id = $1`, cutoff);
    const outputs = await this.purgeRows(
      `SELECT id, output_key AS key FROM jobs WHERE output_key IS NOT NULL AND output_deleted_at IS NULL AND completed_at < $1 LIMIT ${BATCH}`,
      `UPDATE jobs SET output_deleted_at = now() WHERE id = $1`,
      cutoff,
    );
    if (uploads || outputs) this.logger.log(`retention deleted ${uploads} uploads and ${outputs} outputs older than ${hours} h`);
    return { uploads, outputs };
  }

  private async purgeRows(select: string, mark: string, cutoff: Date): Promise<number> {
    const rows: Array<{ id: string; key: string }> = await this.db.query(select, [cutoff]);
    for (const row of rows) {
      await this.storage.delete(row.key);
      await this.db.query(mark, [row.id]);
    }
    return rows.length;
  }
}
