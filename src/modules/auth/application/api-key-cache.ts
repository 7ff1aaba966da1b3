import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { Clock } from '../../../common/clock';
import { ApiKey } from '../domain/api-key';
import { ApiKeyChanges } from '../ports/api-key-changes';

/** What authentication needs of a key, and all the cache keeps: never a balance (credits move through the ledger) nor a secret. */
export type AuthenticatedApiKey = Omit<ApiKey, 'credits' | 'webhookSecret' | 'previousWebhookSecrets'>;

export interface ApiKeyCacheOptions {
  /** an entry is read again after this long even without news (a safety net, not the mechanism) */
  maxAgeMs: number;
  maxEntries: number;
}

const DEFAULTS: ApiKeyCacheOptions = { maxAgeMs: 30_000, maxEntries: 10_000 };

interface Entry {
  key: AuthenticatedApiKey;
  loadedAt: number;
}

/**
 * Keys looked up by hash, kept in this process so a request does not query them. A change to a key
 * anywhere (ApiKeyChanges: Postgres NOTIFY from a trigger on api_keys) drops its entry; while the
 * feed is down nothing is answered from memory. Unknown keys are not kept (a new key works at once).
 *
 * A lookup that started before a change must not store what it read: every change bumps a
 * generation, and a load stores its result only if the generation is the one it started under.
 */
@Injectable()
export class ApiKeyCache implements OnModuleDestroy {
  private readonly entries = new Map<string, Entry>();
  private generation = 0;
  private readonly unsubscribe: () => void;
  private readonly options: ApiKeyCacheOptions;

  constructor(
    private readonly changes: ApiKeyChanges,
    private readonly clock: Clock,
    options: Partial<ApiKeyCacheOptions> = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
    this.unsubscribe = changes.subscribe((keyHash) => this.forget(keyHash));
  }

  /** A cache that never answers from memory (one-shot tools such as the admin CLI). */
  static uncached(): ApiKeyCache {
    const never: ApiKeyChanges = { subscribe: () => () => undefined, isLive: () => false, close: async () => undefined };
    return new ApiKeyCache(never, { now: () => new Date() });
  }

  async get(keyHash: string, load: (keyHash: string) => Promise<ApiKey | null>): Promise<AuthenticatedApiKey | null> {
    const hit = this.cached(keyHash);
    if (hit) return hit;
    const now = this.clock.now().getTime();
    const generation = this.generation;
    const loaded = await load(keyHash);
    if (!loaded) return null;
    const key = authenticatedPartOf(loaded);
    if (generation === this.generation && this.changes.isLive()) this.store(keyHash, { key, loadedAt: now });
    return key;
  }

  /** The key answered from memory, without a lookup; undefined where get would load it. */
  cached(keyHash: string): AuthenticatedApiKey | undefined {
    if (!this.changes.isLive()) return undefined;
    const hit = this.entries.get(keyHash);
    return hit && this.clock.now().getTime() - hit.loadedAt < this.options.maxAgeMs ? hit.key : undefined;
  }

  /** Drops one key (null: every key); called on news from any process, and by this one right after it changes a key. */
  forget(keyHash: string | null): void {
    this.generation += 1;
    if (keyHash === null) this.entries.clear();
    else this.entries.delete(keyHash);
  }

  get size(): number {
    return this.entries.size;
  }

  onModuleDestroy(): void {
    this.unsubscribe();
  }

  private store(keyHash: string, entry: Entry): void {
    this.entries.delete(keyHash);
    if (this.entries.size >= this.options.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(keyHash, entry);
  }
}

function authenticatedPartOf(key: ApiKey): AuthenticatedApiKey {
  return { id: key.id, clientId: key.clientId, note: key.note, keyHash: key.keyHash, fingerprint: key.fingerprint, enabled: key.enabled, createdAt: key.createdAt };
}
