import { createHash, randomUUID } from 'node:crypto';
import { IdempotencyClaim, IdempotencyScope, IdempotencyStore } from '../../src/modules/idempotency/ports/idempotency-store';

/** What every IdempotencyStore must do (on Postgres in repositories.contract.spec.ts, in memory in in-memory.contract.spec.ts). */
/** `abandon`: makes the key's claim older than ABANDONED_AFTER_SECONDS, as a process that died leaves it */
export function describeIdempotencyStoreContract(store: () => IdempotencyStore, newOwner: () => Promise<string>, abandon: (scope: IdempotencyScope) => Promise<void>): void {
  /** A request fingerprint as the interceptor makes them (SHA-256 hex). */
  const fp = (name: string): string => createHash('sha256').update(name).digest('hex');

  describe('IdempotencyStore contract', () => {
    const scopeOf = async () => ({ apiKeyId: await newOwner(), key: `idem-${randomUUID()}` });
    const claimed = { kind: 'claimed', claimId: expect.any(String) };
    /** the claim's id, where the claim won */
    const idOf = (claim: IdempotencyClaim): string => {
      if (claim.kind !== 'claimed') throw new Error(`expected a claim, got ${claim.kind}`);
      return claim.claimId;
    };
    const claimOf = async (scope: IdempotencyScope, fingerprint: string, ttlSeconds: number) => idOf(await store().claim(scope, fingerprint, ttlSeconds));

    it('the first claim wins; the same request while it runs is in progress, another is a mismatch', async () => {
      const scope = await scopeOf();
      expect(await store().claim(scope, fp('fp-a'), 3600)).toEqual(claimed);
      expect(await store().claim(scope, fp('fp-a'), 3600)).toEqual({ kind: 'in_progress' });
      expect(await store().claim(scope, fp('fp-b'), 3600)).toEqual({ kind: 'mismatch' });
    });

    it('of concurrent identical claims exactly one wins', async () => {
      const scope = await scopeOf();
      const claims = await Promise.all([1, 2, 3, 4, 5].map(() => store().claim(scope, fp('fp'), 3600)));
      expect(claims.filter((claim) => claim.kind === 'claimed')).toHaveLength(1);
      expect(claims.filter((claim) => claim.kind === 'in_progress')).toHaveLength(4);
    });

    it('a completed key replays its status and body (as JSON); a different request still mismatches', async () => {
      const scope = await scopeOf();
      const claim = await claimOf(scope, fp('fp'), 3600);
      await store().complete(scope, claim, 201, { id: 'job_1', at: new Date('2026-01-01T00:00:00Z'), nested: [1, null] });
      expect(await store().claim(scope, fp('fp'), 3600)).toEqual({ kind: 'completed', status: 201, body: { id: 'job_1', at: '2026-01-01T00:00:00.000Z', nested: [1, null] } });
      expect(await store().claim(scope, fp('other'), 3600)).toEqual({ kind: 'mismatch' });
    });

    it('a completed key gives back the digest of its body, where one was kept; a key claimed afresh has none', async () => {
      const scope = await scopeOf();
      // 2 s to live: with 1 s, a stalled database expired the key before the first assertions
      await store().complete(scope, await claimOf(scope, fp('upload'), 2), 200, { video_id: 'vid_1' }, fp('the file'));
      expect(await store().claim(scope, fp('upload'), 3600)).toEqual({ kind: 'completed', status: 200, body: { video_id: 'vid_1' }, bodyDigest: fp('the file') });
      await new Promise((resolve) => setTimeout(resolve, 2100));
      await store().complete(scope, await claimOf(scope, fp('upload'), 3600), 200, { video_id: 'vid_2' });
      const completed = await store().claim(scope, fp('upload'), 3600);
      expect(completed).toEqual({ kind: 'completed', status: 200, body: { video_id: 'vid_2' } });
      expect(completed).not.toHaveProperty('bodyDigest');
    });

    it('peek finds what a claim would, and claims nothing: a free key stays free', async () => {
      const scope = await scopeOf();
      expect(await store().peek(scope, fp('fp'))).toEqual({ kind: 'free' });
      const claim = await claimOf(scope, fp('fp'), 2);
      expect(await store().peek(scope, fp('fp'))).toEqual({ kind: 'in_progress' });
      expect(await store().peek(scope, fp('other'))).toEqual({ kind: 'mismatch' });
      await store().complete(scope, claim, 201, { id: 'job_1' }, fp('the body'));
      expect(await store().peek(scope, fp('fp'))).toEqual({ kind: 'completed', status: 201, body: { id: 'job_1' }, bodyDigest: fp('the body') });
      await new Promise((resolve) => setTimeout(resolve, 2100));
      expect(await store().peek(scope, fp('fp'))).toEqual({ kind: 'free' }); // expired: free again
    });

    it('a released key is claimed afresh; releasing a completed key keeps it', async () => {
      const scope = await scopeOf();
      await store().release(scope, await claimOf(scope, fp('fp'), 3600));
      const again = await claimOf(scope, fp('fp-new'), 3600);
      await store().complete(scope, again, 200, { ok: true });
      await store().release(scope, again);
      expect((await store().claim(scope, fp('fp-new'), 3600)).kind).toBe('completed');
    });

    it('only the claim that holds a key completes or releases it: a claim taken over (its key expired) changes nothing', async () => {
      const scope = await scopeOf();
      const first = await claimOf(scope, fp('first'), 1);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const second = await claimOf(scope, fp('second'), 3600);
      await store().release(scope, first);
      expect(await store().claim(scope, fp('second'), 3600)).toEqual({ kind: 'in_progress' });
      await store().complete(scope, first, 201, { id: 'job_first' });
      expect(await store().peek(scope, fp('second'))).toEqual({ kind: 'in_progress' });
      await store().complete(scope, second, 201, { id: 'job_second' });
      expect(await store().claim(scope, fp('second'), 3600)).toEqual({ kind: 'completed', status: 201, body: { id: 'job_second' } });
    });

    it('keys are per API key: the same key under another API key is its own', async () => {
      const scope = await scopeOf();
      await store().claim(scope, fp('fp'), 3600);
      expect(await store().claim({ apiKeyId: await newOwner(), key: scope.key }, fp('other'), 3600)).toEqual(claimed);
    });

    it("forgetApiKey removes every key of the API key, stored responses and claims in progress, and no other API key's", async () => {
      const scope = await scopeOf();
      const completed = { apiKeyId: scope.apiKeyId, key: `idem-${randomUUID()}` };
      await store().complete(completed, await claimOf(completed, fp('done'), 3600), 200, { id: 'job_1' });
      await store().claim(scope, fp('running'), 3600);
      const strangers = await scopeOf();
      await store().claim(strangers, fp('theirs'), 3600);
      await store().forgetApiKey(scope.apiKeyId);
      expect(await store().peek(completed, fp('done'))).toEqual({ kind: 'free' });
      expect(await store().claim(scope, fp('other'), 3600)).toEqual(claimed);
      expect(await store().peek(strangers, fp('theirs'))).toEqual({ kind: 'in_progress' });
    });

    it("a claim taken over once abandoned finds what the abandoned claim's work created; a claim no longer the key's notes nothing", async () => {
      const scope = await scopeOf();
      const first = await claimOf(scope, fp('create'), 3600);
      await store().noteCreated({ scope, claimId: first }, 'job_1');
      await abandon(scope);
      const second = await store().claim(scope, fp('create'), 3600);
      expect(second).toEqual({ kind: 'claimed', claimId: expect.any(String), createdBefore: 'job_1' });
      await store().noteCreated({ scope, claimId: first }, 'job_2');
      await abandon(scope);
      expect(await store().claim(scope, fp('create'), 3600)).toEqual({ kind: 'claimed', claimId: expect.any(String), createdBefore: 'job_1' });
    });

    it('an abandoned claim whose work created nothing is taken over with nothing; an expired key forgets what its claim created', async () => {
      const scope = await scopeOf();
      await claimOf(scope, fp('create'), 3600);
      await abandon(scope);
      expect(await store().claim(scope, fp('create'), 3600)).not.toHaveProperty('createdBefore');

      const expiring = await scopeOf();
      await store().noteCreated({ scope: expiring, claimId: await claimOf(expiring, fp('create'), 1) }, 'job_1');
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const afresh = await store().claim(expiring, fp('create'), 3600);
      expect(afresh).toEqual(claimed);
      expect(afresh).not.toHaveProperty('createdBefore');

      // expired and abandoned both: expired wins
      const both = await scopeOf();
      await store().noteCreated({ scope: both, claimId: await claimOf(both, fp('create'), 1) }, 'job_1');
      await new Promise((resolve) => setTimeout(resolve, 1100));
      await abandon(both);
      expect(await store().claim(both, fp('create'), 3600)).not.toHaveProperty('createdBefore');
    });

    it("a kept claim is neither taken for abandoned nor expired under its work; a claim no longer the key's keeps nothing", async () => {
      const scope = await scopeOf();
      const working = await claimOf(scope, fp('upload'), 1);
      await abandon(scope);
      await store().keepClaimed(scope, working, 3600);
      await new Promise((resolve) => setTimeout(resolve, 1100)); // past the key's time to live
      expect(await store().claim(scope, fp('upload'), 3600)).toEqual({ kind: 'in_progress' });

      const other = await scopeOf();
      const dead = await claimOf(other, fp('upload'), 3600);
      await abandon(other);
      await claimOf(other, fp('upload'), 3600);
      await abandon(other);
      await store().keepClaimed(other, dead, 3600);
      expect(await store().claim(other, fp('upload'), 3600)).toEqual(claimed);
    });

    it('an expired key starts over', async () => {
      const scope = await scopeOf();
      await store().complete(scope, await claimOf(scope, fp('fp'), 1), 200, { first: true });
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect(await store().claim(scope, fp('fp-later'), 3600)).toEqual(claimed);
    });
  });
}
