import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Upload } from '../../domain/upload';
import { UploadRepository } from '../../ports/upload.repository';
import { UploadRecord } from './upload.record';

@Injectable()
export class TypeOrmUploadRepository extends UploadRepository {
  constructor(@InjectRepository(UploadRecord) private readonly records: Repository<UploadRecord>) {
    super();
  }

  async insert(upload: Upload): Promise<void> {
    await this.records.insert({ ...upload });
  }

  async findOwned(id: string, apiKeyId: string): Promise<Upload | null> {
    const record = await this.records.findOneBy({ id, apiKeyId });
    return record ? { ...record } : null;
  }

  /** FOR SHARE: starts on one upload go on side by side; retention's FOR UPDATE waits for them */
  async holdForStart(id: string): Promise<'kept' | 'deleted'> {
    const rows: Array<{ deleted: boolean }> = await this.records.query(`SELECT deleted_at IS NOT NULL AS deleted FROM uploads WHERE id = $1 FOR SHARE`, [id]);
    return rows.length && !rows[0].deleted ? 'kept' : 'deleted';
  }

  /** waits, row by row, for the FOR SHARE hold of a start in flight (holdForStart), as retention's claim does */
  async eraseClientContent(apiKeyId: string, now: Date): Promise<{ uploads: number; storageKeys: string[] }> {
    const [rows] = (await this.records.query(`UPDATE uploads SET filename = '', deleted_at = COALESCE(deleted_at, $2) WHERE api_key_id = $1 RETURNING storage_key`, [apiKeyId, now])) as [Array<{ storage_key: string }>, number];
    return { uploads: rows.length, storageKeys: rows.map((row) => row.storage_key) };
  }
}
