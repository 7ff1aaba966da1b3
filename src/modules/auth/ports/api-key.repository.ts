import { ApiKey } from '../domain/api-key';

export interface NewApiKey {
  clientId: string;
  note: string | null;
  keyHash: string;
  fingerprint: string;
  webhookSecret: string;
}

export abstract class ApiKeyRepository {
  abstract create(key: NewApiKey): Promise<ApiKey>;
  abstract findByHash(keyHash: string): Promise<ApiKey | null>;
  abstract findByFingerprint(fingerprint: string): Promise<ApiKey | null>;
  abstract findById(id: string): Promise<ApiKey | null>;
  abstract list(): Promise<ApiKey[]>;
  abstract setEnabled(fingerprint: string, enabled: boolean): Promise<ApiKey | null>;
  /** `secret` becomes the key's; the one it replaces (if any) stays valid until `previousValidUntil` */
  abstract rotateWebhookSecret(id: string, secret: string, previousValidUntil: Date): Promise<void>;
  abstract count(): Promise<number>;
}
