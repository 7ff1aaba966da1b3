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
}
