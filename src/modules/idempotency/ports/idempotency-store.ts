export interface IdempotencyScope {
  apiKeyId: string;
  key: string;
}

/** What a claim found: the right to do the work, or the reason not to. */
export type IdempotencyClaim =
  | { kind: 'claimed' }
  | { kind: 'in_progress' }
  | { kind: 'mismatch' }
  | { kind: 'completed'; status: number; body: unknown; bodyDigest?: string };

/** A key as a store holds it: its request's fingerprint, and its response once the work is done. */
export interface HeldKey {
  fingerprint: string;
  response?: { status: number; body: unknown; bodyDigest?: string | null };
}

/** What a claim (or a peek) of `fingerprint` finds on a key that is held: the same rules in every store. */
export function claimOnHeld(held: HeldKey, fingerprint: string): IdempotencyClaim {
  if (held.fingerprint !== fingerprint) return { kind: 'mismatch' };
  if (!held.response) return { kind: 'in_progress' };
  const { status, body, bodyDigest } = held.response;
  return bodyDigest == null ? { kind: 'completed', status, body } : { kind: 'completed', status, body, bodyDigest };
}

/** Idempotency keys with the first response of each, kept `ttlSeconds` per API key. */
export abstract class IdempotencyStore {
  /** Claims the key for this request unless it is taken (then says by what). Atomic across processes. */
  abstract claim(scope: IdempotencyScope, fingerprint: string, ttlSeconds: number): Promise<IdempotencyClaim>;
  /**
   * What a claim would find, without claiming: the key's completed response where it holds one for
   * this request, else why not (`claimed` where nothing holds the key). For a request refused anyway
   * unless it is a replay (a job start over the per-key limit): it writes nothing.
   */
  abstract peek(scope: IdempotencyScope, fingerprint: string): Promise<IdempotencyClaim>;
  /**
   * Records the response of a claimed key; later requests replay it. `bodyDigest` is for a request
   * whose body could not be read before its claim (an upload): the claim returns it, and the caller
   * replays only a request whose body has the same digest.
   */
  abstract complete(scope: IdempotencyScope, status: number, body: unknown, bodyDigest?: string): Promise<void>;
  /** Gives a claimed key back (the work failed): the next request with it does the work afresh. */
  abstract release(scope: IdempotencyScope): Promise<void>;
}
