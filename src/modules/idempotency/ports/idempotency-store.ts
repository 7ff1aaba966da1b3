/** A claim still in progress after this long, not kept (`keepClaimed`), is taken to be abandoned (its process died) and may be claimed again. */
export const ABANDONED_AFTER_SECONDS = 15 * 60;

export interface IdempotencyScope {
  apiKeyId: string;
  key: string;
}

/** What a key held by a request finds for another: still running, another request's, or its response. */
export type HeldClaim = { kind: 'in_progress' } | { kind: 'mismatch' } | { kind: 'completed'; status: number; body: unknown; bodyDigest?: string };

/**
 * What a claim found: the right to do the work, or the reason not to. `claimId` names this claim:
 * only it completes or releases the key, so a request whose claim was taken over (abandoned after
 * ABANDONED_AFTER_SECONDS, or expired) cannot delete or overwrite the claim that took it over.
 * `createdBefore`: the claim took over an abandoned one whose work had committed what it created
 * (`noteCreated`) before its process died unanswered; that work is not to be done again.
 */
export type IdempotencyClaim = { kind: 'claimed'; claimId: string; createdBefore?: string } | HeldClaim;

/** The claim a request's work runs under, as the work's own transaction names it to `noteCreated`. */
export interface ClaimedKey {
  scope: IdempotencyScope;
  claimId: string;
}

/** What a peek found: nothing holds the key, or what holds it. */
export type IdempotencyPeek = { kind: 'free' } | HeldClaim;

/** A key as a store holds it: its request's fingerprint, and its response once the work is done. */
export interface HeldKey {
  fingerprint: string;
  response?: { status: number; body: unknown; bodyDigest?: string | null };
}

/** What a claim (or a peek) of `fingerprint` finds on a key that is held: the same rules in every store. */
export function claimOnHeld(held: HeldKey, fingerprint: string): HeldClaim {
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
   * this request, else why not (`free` where nothing holds the key). For a request refused anyway
   * unless it is a replay (a job start over the per-key limit): it writes nothing.
   */
  abstract peek(scope: IdempotencyScope, fingerprint: string): Promise<IdempotencyPeek>;
  /**
   * Records the response of the key claimed as `claimId`; later requests replay it. Nothing where
   * the claim is no longer the key's. `bodyDigest` is for a request whose body could not be read
   * before its claim (an upload): the claim returns it, and the caller replays only a request whose
   * body has the same digest.
   */
  abstract complete(scope: IdempotencyScope, claimId: string, status: number, body: unknown, bodyDigest?: string): Promise<void>;
  /**
   * Records what the work under `claim` created (a job's id), in the transaction that creates it: a
   * process that dies after that commit, before `complete`, left a claim that a retry takes over once
   * abandoned, and that claim then finds it as `createdBefore` instead of creating it again (a second
   * job, charged twice). Nothing where the claim is no longer the key's.
   */
  abstract noteCreated(claim: ClaimedKey, resourceId: string): Promise<void>;
  /**
   * The claim `claimId` is still being worked on (its process is alive, a long upload arriving): it is
   * not taken for abandoned for another ABANDONED_AFTER_SECONDS, and the key does not expire within
   * `ttlSeconds` (its time to live, counted again from now). Nothing where the claim is no longer the key's.
   */
  abstract keepClaimed(scope: IdempotencyScope, claimId: string, ttlSeconds: number): Promise<void>;
  /** Gives the key claimed as `claimId` back (the work failed): the next request with it does the work afresh. Nothing where the claim is no longer the key's. */
  abstract release(scope: IdempotencyScope, claimId: string): Promise<void>;
  /** Removes every key of an API key, with the responses stored under them (an erasure of its data). */
  abstract forgetApiKey(apiKeyId: string): Promise<void>;
}
