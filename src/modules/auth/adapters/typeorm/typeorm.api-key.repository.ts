import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ApiKey } from '../../domain/api-key';
import { ApiKeyRepository, NewApiKey } from '../../ports/api-key.repository';
import { ApiKeyRecord } from './api-key.record';

function toDomain(record: ApiKeyRecord): ApiKey {
  return {
    id: record.id,
    clientId: record.clientId,
    note: record.note,
    keyHash: record.keyHash,
    fingerprint: record.keyFingerprint,
    enabled: record.enabled,
    credits: record.credits,
    webhookSecret: record.webhookSecret,
    previousWebhookSecret: record.previousWebhookSecret && record.previousWebhookSecretUntil ? { secret: record.previousWebhookSecret, validUntil: record.previousWebhookSecretUntil } : null,
    createdAt: record.createdAt,
  };
}

@Injectable()
export class TypeOrmApiKeyRepository extends ApiKeyRepository {
  constructor(@InjectRepository(ApiKeyRecord) private readonly records: Repository<ApiKeyRecord>) {
    super();
  }

  async create(key: NewApiKey): Promise<ApiKey> {
    const saved = await this.records.save(
      this.records.create({ clientId: key.clientId, note: key.note, keyHash: key.keyHash, keyFingerprint: key.fingerprint, enabled: true, credits: 0, webhookSecret: key.webhookSecret }),
    );
    return toDomain(saved);
  }

  async findByHash(keyHash: string): Promise<ApiKey | null> {
    const record = await this.records.findOneBy({ keyHash });
    return record ? toDomain(record) : null;
  }

  async findByFingerprint(fingerprint: string): Promise<ApiKey | null> {
    const record = await this.records.findOneBy({ keyFingerprint: fingerprint });
    return record ? toDomain(record) : null;
  }

  async findById(id: string): Promise<ApiKey | null> {
    const record = await this.records.findOneBy({ id });
    return record ? toDomain(record) : null;
  }

  async list(): Promise<ApiKey[]> {
    return (await this.records.find({ order: { createdAt: 'ASC' } })).map(toDomain);
  }

  async setEnabled(fingerprint: string, enabled: boolean): Promise<ApiKey | null> {
    await this.records.update({ keyFingerprint: fingerprint }, { enabled });
    return this.findByFingerprint(fingerprint);
  }

  /** one statement: two rotations at once each keep the secret they replaced, never one that was not the key's */
  async rotateWebhookSecret(id: string, secret: string, previousValidUntil: Date): Promise<void> {
    await this.records
      .createQueryBuilder()
      .update()
      .set({
        previousWebhookSecret: () => 'webhook_secret',
        previousWebhookSecretUntil: () => 'CASE WHEN webhook_secret IS NULL THEN NULL ELSE CAST(:until AS timestamptz) END',
        webhookSecret: secret,
      })
      .where('id = :id', { id, until: previousValidUntil.toISOString() })
      .execute();
  }

  count(): Promise<number> {
    return this.records.count();
  }
}
