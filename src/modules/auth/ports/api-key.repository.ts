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
   * `secret` becomes the key's; the one it replaces (if any) joins the previous secrets, valid until
   * `previousValidUntil`; those no longer valid at `now` are dropped, and only the latest
   * MAX_PREVIOUS_WEBHOOK_SECRETS kept. One step: two rotations at once each keep the secret they replaced.
   */
  abstract rotateWebhookSecret(id: string, secret: string, at: { now: Date; previousValidUntil: Date }): Promise<void>;
  /** `secret` becomes the key's only where it has none: of two calls at once, the first one's stays. */
  abstract giveWebhookSecretIfNone(id: string, secret: string): Promise<void>;
  abstract count(): Promise<number>;
}
