import { randomUUID } from 'node:crypto';
import { ApiKey } from '../../domain/api-key';
import { ApiKeyRepository, NewApiKey } from '../../ports/api-key.repository';
import { validPreviousSecrets } from '../../../../common/webhook-secret';
import { InMemoryApiKeyChanges } from './in-memory.api-key-changes';
import type { Snapshottable } from '../../../../common/in-memory.unit-of-work';

/**
 * API keys in a Map. `credits` stays 0 here: balances are the ledger's (the Postgres column is only its projection).
 * Changes to a key are announced on `changes`, as the Postgres triggers announce them.
 */
export class InMemoryApiKeyRepository extends ApiKeyRepository implements Snapshottable {
  private keys = new Map<string, ApiKey>();

  constructor(
    private readonly now: () => Date = () => new Date(),
    readonly changes = new InMemoryApiKeyChanges(),
  ) {
    super();
  }

  snapshot(): () => void {
    const saved = new Map([...this.keys].map(([id, key]) => [id, structuredClone(key)]));
    return () => {
      this.keys = saved;
    };
  }

  async create(key: NewApiKey): Promise<ApiKey> {
    const created: ApiKey = { id: randomUUID(), clientId: key.clientId, note: key.note, keyHash: key.keyHash, fingerprint: key.fingerprint, enabled: true, credits: 0, webhookSecret: key.webhookSecret, previousWebhookSecrets: [], createdAt: this.now() };
    this.keys.set(created.id, created);
    return { ...created };
  }

  async findByHash(keyHash: string): Promise<ApiKey | null> {
    return this.copyOf([...this.keys.values()].find((key) => key.keyHash === keyHash));
  }

  async findByFingerprint(fingerprint: string): Promise<ApiKey | null> {
    return this.copyOf([...this.keys.values()].find((key) => key.fingerprint === fingerprint));
  }

  async findById(id: string): Promise<ApiKey | null> {
    return this.copyOf(this.keys.get(id));
  }

  async list(): Promise<ApiKey[]> {
    return [...this.keys.values()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()).map((key) => ({ ...key }));
  }

  /** the in-memory unit of work runs one transaction at a time: nothing to hold */
  async lockDisabled(id: string): Promise<boolean> {
    return (await this.findById(id))?.enabled === false;
  }

  async setEnabled(fingerprint: string, enabled: boolean): Promise<ApiKey | null> {
    const key = [...this.keys.values()].find((candidate) => candidate.fingerprint === fingerprint);
    if (!key) return null;
    if (key.enabled !== enabled) this.changes.announce(key.keyHash);
    key.enabled = enabled;
    return { ...key };
  }

  async rotateWebhookSecret(id: string, secret: string, at: { now: Date; previousValidUntil: Date }): Promise<void> {
    const key = this.keys.get(id);
    if (!key) return;
    const replaced = key.webhookSecret ? [{ secret: key.webhookSecret, validUntil: new Date(at.previousValidUntil) }] : [];
    key.previousWebhookSecrets = validPreviousSecrets([...replaced, ...key.previousWebhookSecrets], at.now);
    key.webhookSecret = secret;
    this.changes.announce(key.keyHash);
  }

  async giveWebhookSecretIfNone(id: string, secret: string): Promise<void> {
    const key = this.keys.get(id);
    if (!key || key.webhookSecret) return;
    key.webhookSecret = secret;
    this.changes.announce(key.keyHash);
  }

  async count(): Promise<number> {
    return this.keys.size;
  }

  /** Deletes a key (the port has no delete; administrators delete rows by hand, and the triggers announce it). */
  delete(id: string): void {
    const key = this.keys.get(id);
    if (!key) return;
    this.keys.delete(id);
    this.changes.announce(key.keyHash);
  }

  private copyOf(key: ApiKey | undefined): ApiKey | null {
    return key ? { ...key } : null;
  }
}
