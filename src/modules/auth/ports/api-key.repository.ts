import { ApiKey } from '../domain/api-key';

export interface NewApiKey {
  clientId: string;
  note: string | null;
  keyHash: string;
  fingerprint: string;
  credits: number;
}

export abstract class ApiKeyRepository {
  abstract create(key: NewApiKey): Promise<ApiKey>;
  abstract findByHash(keyHash: string): Promise<ApiKey | null>;
  abstract findByFingerprint(fingerprint: string): Promise<ApiKey | null>;
  abstract findById(id: string): Promise<ApiKey | null>;
  abstract list(): Promise<ApiKey[]>;
  abstract setEnabled(fingerprint: string, enabled: boolean): Promise<ApiKey | null>;
  /** Adds `delta` (may be negative) to the balance, never below zero; null when the key is unknown. */
  abstract addCredits(fingerprint: string, delta: number): Promise<ApiKey | null>;
  abstract count(): Promise<number>;
}
