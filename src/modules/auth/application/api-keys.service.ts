import { Injectable } from '@nestjs/common';
import { DomainError } from '../../../common/errors/domain-error';
import { UnitOfWork } from '../../../common/unit-of-work';
import { newWebhookSecret, validPreviousSecrets } from '../../../common/webhook-secret';
import { ApiKey, hashApiKey, issueApiKey, looksLikeApiKey } from '../domain/api-key';
import { CreditLedger } from '../../billing/ports/credit-ledger';
import { ApiKeyRepository } from '../ports/api-key.repository';
import { ApiKeyCache, AuthenticatedApiKey } from './api-key-cache';
import { WebhookSecretOverlap } from './webhook-secret-overlap';

/** A key's webhook signing secret, and until when a secret it replaced still signs beside it (the last of them; null: it signs alone) */
export interface WebhookSecretView {
  secret: string;
  previousValidUntil: Date | null;
}

export interface CreatedKey {
  apiKey: string;
  key: ApiKey;
}

/** Issuing, authenticating and administering API keys; credits move only through the ledger. */
@Injectable()
export class ApiKeysService {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly unitOfWork: UnitOfWork,
    private readonly cache: ApiKeyCache,
    private readonly secretOverlap: WebhookSecretOverlap,
  ) {}

  async create(clientId: string, note: string | null, credits: number): Promise<CreatedKey> {
    const issued = issueApiKey();
    const key = await this.unitOfWork.run(async (tx) => {
      const created = await tx.get(ApiKeyRepository).create({ clientId, note, keyHash: issued.keyHash, fingerprint: issued.fingerprint, webhookSecret: newWebhookSecret() });
      if (credits > 0) await tx.get(CreditLedger).grant(created.id, credits, 'granted at creation');
      return (await tx.get(ApiKeyRepository).findById(created.id)) ?? created;
    });
    return { apiKey: issued.plaintext, key };
  }

  /** One answer for unknown, malformed and disabled keys. Served from the cache (ApiKeyCache) when it can. */
  async authenticate(presented: string | undefined): Promise<AuthenticatedApiKey> {
    if (!presented) throw new DomainError('missing_api_key', 'Missing API key: send it in the X-Api-Key header');
    const key = looksLikeApiKey(presented) ? await this.cache.get(hashApiKey(presented), (keyHash) => this.keys.findByHash(keyHash)) : null;
    if (!key || !key.enabled) throw new DomainError('invalid_api_key', 'Invalid API key');
    return key;
  }

  answersFromMemory(presented: string): boolean {
    const key = looksLikeApiKey(presented) ? this.cache.cached(hashApiKey(presented)) : undefined;
    return key !== undefined && key.enabled;
  }

  list(): Promise<ApiKey[]> {
    return this.keys.list();
  }

  async byFingerprint(fingerprint: string): Promise<ApiKey> {
    const key = await this.keys.findByFingerprint(fingerprint);
    if (!key) throw DomainError.notFound('API key');
    return key;
  }

  async setEnabled(fingerprint: string, enabled: boolean): Promise<ApiKey> {
    const key = await this.keys.setEnabled(fingerprint, enabled);
    if (!key) throw DomainError.notFound('API key');
    this.cache.forget(key.keyHash); // at once here; other processes hear it from the change feed
    return key;
  }

  /** Grants (or with a negative number deducts, never below zero) credits through the ledger. */
  async grantCredits(fingerprint: string, credits: number): Promise<ApiKey> {
    const key = await this.byFingerprint(fingerprint);
    return this.unitOfWork.run(async (tx) => {
      await tx.get(CreditLedger).grant(key.id, credits, credits >= 0 ? 'granted by an administrator' : 'deducted by an administrator');
      return (await tx.get(ApiKeyRepository).findById(key.id))!;
    });
  }

  /** The key's webhook signing secret (created if it has none yet), read afresh: the cache keeps no secrets. */
  async webhookSecret(key: Pick<ApiKey, 'id'>): Promise<WebhookSecretView> {
    let stored = await this.keys.findById(key.id);
    if (stored && !stored.webhookSecret) {
      await this.keys.giveWebhookSecretIfNone(key.id, newWebhookSecret());
      stored = await this.keys.findById(key.id);
    }
    if (!stored?.webhookSecret) throw DomainError.notFound('API key');
    return this.secretViewOf(stored);
  }

  /** A new secret; the one it replaces keeps signing beside it for WEBHOOK_SECRET_OVERLAP_SECONDS, so receivers can move over. */
  async rotateWebhookSecret(key: Pick<ApiKey, 'id'>): Promise<WebhookSecretView> {
    await this.keys.rotateWebhookSecret(key.id, newWebhookSecret(), { now: this.secretOverlap.now(), previousValidUntil: this.secretOverlap.previousValidUntil() });
    const stored = await this.keys.findById(key.id);
    if (!stored?.webhookSecret) throw DomainError.notFound('API key');
    return this.secretViewOf(stored);
  }

  private secretViewOf(key: ApiKey): WebhookSecretView {
    const [latest] = validPreviousSecrets(key.previousWebhookSecrets, this.secretOverlap.now());
    return { secret: key.webhookSecret!, previousValidUntil: latest?.validUntil ?? null };
  }

  count(): Promise<number> {
    return this.keys.count();
  }
}
