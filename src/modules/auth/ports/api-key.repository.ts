import { DomainError } from '../../../common/errors/domain-error';
import { ApiKey } from '../domain/api-key';

export interface NewApiKey {
  clientId: string;
  note: string | null;
  keyHash: string;
  fingerprint: string;
  /** null only for keys as they were before secrets were issued with them (imported or migrated rows) */
  webhookSecret: string | null;
}

export abstract class ApiKeyRepository {
  abstract create(key: NewApiKey): Promise<ApiKey>;
  abstract findByHash(keyHash: string): Promise<ApiKey | null>;
  abstract findByFingerprint(fingerprint: string): Promise<ApiKey | null>;
  abstract findById(id: string): Promise<ApiKey | null>;
  abstract list(): Promise<ApiKey[]>;
  abstract setEnabled(fingerprint: string, enabled: boolean): Promise<ApiKey | null>;
  /**
   * In a transaction that writes the key's data (an upload, a job): holds the key's row against a
   * disable until the transaction ends, and says whether the key is disabled (a key without a row is
   * not: the write meets its foreign key). Such a write either commits before a disable, where an
   * erasure that follows the disable finds it, or finds the key disabled: without the hold, a request
   * that authenticated just before the disable wrote its data after the erasure.
   */
  abstract lockDisabled(id: string): Promise<boolean>;
  /**
   * `secret` becomes the key's; the one it replaces (if any) joins the previous secrets, valid until
   * `previousValidUntil`; those no longer valid at `now` are dropped, and only the latest
   * MAX_PREVIOUS_WEBHOOK_SECRETS kept. One step: two rotations at once each keep the secret they replaced.
   */
  abstract rotateWebhookSecret(id: string, secret: string, at: { now: Date; previousValidUntil: Date }): Promise<void>;
  /** `secret` becomes the key's only where it has none: of two calls at once, the first one's stays. */
  abstract giveWebhookSecretIfNone(id: string, secret: string): Promise<void>;
  abstract count(): Promise<number>;
}

/** lockDisabled, a disabled key refused as authentication refuses it (401) */
export async function holdEnabledKey(keys: ApiKeyRepository, id: string): Promise<void> {
  if (await keys.lockDisabled(id)) throw new DomainError('invalid_api_key', 'Invalid API key');
}
