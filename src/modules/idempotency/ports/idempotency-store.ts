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
