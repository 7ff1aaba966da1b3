import { randomUUID } from 'node:crypto';
import { Clock, SystemClock } from '../../../../common/clock';
import { Snapshottable } from '../../../../common/in-memory.unit-of-work';
import { ABANDONED_AFTER_SECONDS, ClaimedKey, claimOnHeld, HeldClaim, IdempotencyClaim, IdempotencyPeek, IdempotencyScope, IdempotencyStore } from '../../ports/idempotency-store';

interface Entry {
  fingerprint: string;
  claimId: string;
  status: 'in_progress' | 'completed';
  response?: { status: number; body: unknown; bodyDigest?: string };
  claimedAt: number;
  expiresAt: number;
  /** what the claim's work created (noteCreated), kept by a claim that takes an abandoned one over */
  createdResource?: string;
}

/**
 * Idempotency keys in a Map, with the Postgres store's rules: one claim wins, the same request while
 * it runs is in progress, another request under the key is a mismatch, an expired key or a claim
 * abandoned for ABANDONED_AFTER_SECONDS starts over; a stored body comes back as JSON would. In a
 * unit of work, a rollback takes back what noteCreated wrote in it (claims are made outside any).
 */
export class InMemoryIdempotencyStore extends IdempotencyStore implements Snapshottable {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly clock: Clock = new SystemClock()) {
    super();
  }

  async claim(scope: IdempotencyScope, fingerprint: string, ttlSeconds: number): Promise<IdempotencyClaim> {
    const now = this.clock.now().getTime();
    const id = idOf(scope);
    const entry = this.entries.get(id);
    const abandoned = entry?.status === 'in_progress' && entry.fingerprint === fingerprint && entry.claimedAt < now - ABANDONED_AFTER_SECONDS * 1000;
    if (!entry || entry.expiresAt <= now || abandoned) {
      const claimId = randomUUID();
      const createdBefore = abandoned && entry.expiresAt > now ? entry.createdResource : undefined;
      this.entries.set(id, { fingerprint, claimId, status: 'in_progress', claimedAt: now, expiresAt: now + ttlSeconds * 1000, createdResource: createdBefore });
      return createdBefore === undefined ? { kind: 'claimed', claimId } : { kind: 'claimed', claimId, createdBefore };
    }
    return claimOn(entry, fingerprint);
  }

  async peek(scope: IdempotencyScope, fingerprint: string): Promise<IdempotencyPeek> {
    const entry = this.entries.get(idOf(scope));
    return entry && entry.expiresAt > this.clock.now().getTime() ? claimOn(entry, fingerprint) : { kind: 'free' };
  }

  async complete(scope: IdempotencyScope, claimId: string, status: number, body: unknown, bodyDigest?: string): Promise<void> {
    const entry = this.claimed(scope, claimId);
    if (entry) Object.assign(entry, { status: 'completed', response: { status, body: JSON.parse(JSON.stringify(body ?? null)), bodyDigest } });
  }

  async noteCreated({ scope, claimId }: ClaimedKey, resourceId: string): Promise<void> {
    const entry = this.claimed(scope, claimId);
    if (entry) entry.createdResource = resourceId;
  }

  async keepClaimed(scope: IdempotencyScope, claimId: string, ttlSeconds: number): Promise<void> {
    const entry = this.claimed(scope, claimId);
    if (!entry) return;
    const now = this.clock.now().getTime();
    Object.assign(entry, { claimedAt: now, expiresAt: Math.max(entry.expiresAt, now + ttlSeconds * 1000) });
  }

  snapshot(): () => void {
    const noted = [...this.entries.values()].map((entry) => [entry, entry.createdResource] as const);
    return () => {
      for (const [entry, createdResource] of noted) entry.createdResource = createdResource;
    };
  }

  async release(scope: IdempotencyScope, claimId: string): Promise<void> {
    if (this.claimed(scope, claimId)) this.entries.delete(idOf(scope));
  }

  async forgetApiKey(apiKeyId: string): Promise<void> {
    for (const id of [...this.entries.keys()]) if (id.startsWith(`${apiKeyId}\n`)) this.entries.delete(id);
  }

  /** the key's entry while `claimId` holds it in progress */
  private claimed(scope: IdempotencyScope, claimId: string): Entry | undefined {
    const entry = this.entries.get(idOf(scope));
    return entry?.status === 'in_progress' && entry.claimId === claimId ? entry : undefined;
  }
}

const idOf = (scope: IdempotencyScope): string => `${scope.apiKeyId}\n${scope.key}`;

/** what a claim of `fingerprint` finds on the key's entry; a stored body comes back as JSON would */
function claimOn(entry: Entry, fingerprint: string): HeldClaim {
  const { response } = entry;
  const completed = entry.status === 'completed' && response ? { ...response, body: JSON.parse(JSON.stringify(response.body ?? null)) } : undefined;
  return claimOnHeld({ fingerprint: entry.fingerprint, response: completed }, fingerprint);
}
