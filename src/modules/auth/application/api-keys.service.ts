import { Injectable } from '@nestjs/common';
import { DomainError } from '../../../common/errors/domain-error';
import { ApiKey, hashApiKey, issueApiKey, looksLikeApiKey } from '../domain/api-key';
import { ApiKeyRepository } from '../ports/api-key.repository';

export interface CreatedKey {
  apiKey: string;
  key: ApiKey;
}

/** Issuing, authenticating and administering API keys. */
@Injectable()
export class ApiKeysService {
  constructor(private readonly keys: ApiKeyRepository) {}

  async create(clientId: string, note: string | null, credits: number): Promise<CreatedKey> {
    const issued = issueApiKey();
    const key = await this.keys.create({ clientId, note, keyHash: issued.keyHash, fingerprint: issued.fingerprint, credits });
    return { apiKey: issued.plaintext, key };
  }

  /** One answer for unknown, malformed and disabled keys. */
  async authenticate(presented: string | undefined): Promise<ApiKey> {
    if (!presented) throw new DomainError('missing_api_key', 'Missing API key: send it in the X-Api-Key header');
    const key = looksLikeApiKey(presented) ? await this.keys.findByHash(hashApiKey(presented)) : null;
    if (!key || !key.enabled) throw new DomainError('invalid_api_key', 'Invalid API key');
    return key;
  }

  list(): Promise<ApiKey[]> {
    return this.keys.list();
  }

  async setEnabled(fingerprint: string, enabled: boolean): Promise<ApiKey> {
    const key = await this.keys.setEnabled(fingerprint, enabled);
    if (!key) throw DomainError.notFound('API key');
    return key;
  }

  async grantCredits(fingerprint: string, credits: number): Promise<ApiKey> {
    const key = await this.keys.addCredits(fingerprint, credits);
    if (!key) throw DomainError.notFound('API key');
    return key;
  }

  count(): Promise<number> {
    return this.keys.count();
  }
}
