import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ApiKey } from '../../domain/api-key';
import { ApiKeyRepository, NewApiKey } from '../../ports/api-key.repository';
import { MAX_PREVIOUS_WEBHOOK_SECRETS } from '../../../../common/webhook-secret';
import { hydratedRecord } from '../../../../infrastructure/database/hydrated-record';
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
    previousWebhookSecrets: (record.previousWebhookSecrets ?? []).map((entry) => ({ secret: entry.secret, validUntil: new Date(entry.validUntil) })),
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

  /** the row as this update left it (RETURNING): read again, an enable racing a disable answered the other's state */
  async setEnabled(fingerprint: string, enabled: boolean): Promise<ApiKey | null> {
    const result = await this.records.createQueryBuilder().update().set({ enabled }).where('key_fingerprint = :fingerprint', { fingerprint }).returning('*').execute();
    const [row] = result.raw as Array<Record<string, unknown>>;
    return row ? toDomain(hydratedRecord(this.records, row)) : null;
  }

  /** FOR NO KEY UPDATE, the credit ledger's own lock on the row: a disable (an UPDATE of the row) waits for it */
  async lockDisabled(id: string): Promise<boolean> {
    const rows: Array<{ enabled: boolean }> = await this.records.query(`SELECT enabled FROM api_keys WHERE id = $1 FOR NO KEY UPDATE`, [id]);
    return rows[0]?.enabled === false;
  }

  /** one statement: Postgres reads every SET from the row as it was, so each rotation keeps the secret it replaced */
  async rotateWebhookSecret(id: string, secret: string, at: { now: Date; previousValidUntil: Date }): Promise<void> {
    await this.records.query(
      `UPDATE api_keys SET
         previous_webhook_secrets = (
           SELECT COALESCE(jsonb_agg(entry ORDER BY (entry->>'validUntil')::timestamptz DESC), '[]'::jsonb)
             FROM (
               SELECT entry FROM (
                 SELECT jsonb_build_object('secret', webhook_secret, 'validUntil', $3::text) AS entry WHERE webhook_secret IS NOT NULL AND $3::timestamptz > $4::timestamptz
                 UNION ALL
                 SELECT kept FROM jsonb_array_elements(previous_webhook_secrets) AS kept WHERE (kept->>'validUntil')::timestamptz > $4::timestamptz
               ) AS candidates
               ORDER BY (entry->>'validUntil')::timestamptz DESC
               LIMIT $5
             ) AS latest
         ),
         webhook_secret = $2
       WHERE id = $1`,
      [id, secret, at.previousValidUntil.toISOString(), at.now.toISOString(), MAX_PREVIOUS_WEBHOOK_SECRETS],
    );
  }

  async giveWebhookSecretIfNone(id: string, secret: string): Promise<void> {
    await this.records.query('UPDATE api_keys SET webhook_secret = $2 WHERE id = $1 AND webhook_secret IS NULL', [id, secret]);
  }

  count(): Promise<number> {
    return this.records.count();
  }
}
