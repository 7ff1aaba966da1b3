import { randomUUID } from 'node:crypto';
import { outcomeOf } from '../../src/modules/rate-limit/domain/sliding-window';
import { RateLimitStore } from '../../src/modules/rate-limit/ports/rate-limit-store';

const WINDOW = 1000;
/** the start of a window: every test pins its own times from here */
const T0 = 1_900_000_000_000;

/** What every RateLimitStore must do (run on Redis, Postgres and in memory by rate-limit-stores.contract.spec.ts). */
export function describeRateLimitStoreContract(store: () => RateLimitStore): void {
  describe('RateLimitStore contract (sliding window)', () => {
    const key = () => `contract:${randomUUID()}`;

    it('admits exactly `limit` requests in a window and counts only admitted ones', async () => {
      const k = key();
      for (let i = 1; i <= 5; i += 1) expect(await store().consume(k, 5, WINDOW, T0 + 10 * i)).toEqual({ previous: 0, current: i, elapsedMs: 10 * i, admitted: true, windowStart: T0 });
      expect(await store().consume(k, 5, WINDOW, T0 + 100)).toEqual({ previous: 0, current: 5, elapsedMs: 100, admitted: false, windowStart: T0 });
      expect(await store().consume(k, 5, WINDOW, T0 + 999)).toMatchObject({ current: 5, admitted: false });
    });

    it('release gives one admitted request back to its window, current or, once slid, previous; never below 0', async () => {
      const k = key();
      for (let i = 0; i < 3; i += 1) await store().consume(k, 3, WINDOW, T0 + i);
      expect((await store().consume(k, 3, WINDOW, T0 + 10)).admitted).toBe(false);
      await store().release(k, WINDOW, T0 + 1);
      expect(await store().consume(k, 3, WINDOW, T0 + 20)).toEqual({ previous: 0, current: 3, elapsedMs: 20, admitted: true, windowStart: T0 });
      // the next window: the first window's 3 are its previous count
      expect(await store().consume(k, 3, WINDOW, T0 + WINDOW + 999)).toEqual({ previous: 3, current: 1, elapsedMs: 999, admitted: true, windowStart: T0 + WINDOW });
      await store().release(k, WINDOW, T0 + 2);
      expect(await store().consume(k, 3, WINDOW, T0 + WINDOW + 999)).toEqual({ previous: 2, current: 2, elapsedMs: 999, admitted: true, windowStart: T0 + WINDOW });
      for (let i = 0; i < 4; i += 1) await store().release(k, WINDOW, T0); // 2 to give back, then nothing: never below 0
      await store().release(k, WINDOW, T0 - WINDOW); // two windows back: nothing to give back to
      expect(await store().consume(k, 9, WINDOW, T0 + WINDOW + 999)).toEqual({ previous: 0, current: 3, elapsedMs: 999, admitted: true, windowStart: T0 + WINDOW });
      await store().release(key(), WINDOW, T0); // an unknown key: nothing happens
    });

    it('keeps each key apart', async () => {
      const [busy, quiet] = [key(), key()];
      await store().consume(busy, 1, WINDOW, T0);
      expect((await store().consume(busy, 1, WINDOW, T0 + 1)).admitted).toBe(false);
      expect(await store().consume(quiet, 1, WINDOW, T0 + 2)).toMatchObject({ current: 1, admitted: true });
    });

    it('at the window boundary the count slides: the previous window weighs (window - elapsed) / window', async () => {
      const k = key();
      for (let i = 0; i < 4; i += 1) await store().consume(k, 4, WINDOW, T0 + WINDOW - 4 + i); // the last 4 ms of the window
      expect((await store().consume(k, 4, WINDOW, T0 + WINDOW - 1)).admitted).toBe(false);
      // next window: 4 * (1000 - e) / 1000 + 0 + 1 <= 4 from e = 250 on
      expect(await store().consume(k, 4, WINDOW, T0 + WINDOW)).toEqual({ previous: 4, current: 0, elapsedMs: 0, admitted: false, windowStart: T0 + WINDOW });
      expect(await store().consume(k, 4, WINDOW, T0 + WINDOW + 249)).toEqual({ previous: 4, current: 0, elapsedMs: 249, admitted: false, windowStart: T0 + WINDOW });
      expect(await store().consume(k, 4, WINDOW, T0 + WINDOW + 250)).toEqual({ previous: 4, current: 1, elapsedMs: 250, admitted: true, windowStart: T0 + WINDOW });
      // 4 * 0.5 + 1 + 1 <= 4 at e = 500; a third one only at e = 750
      expect((await store().consume(k, 4, WINDOW, T0 + WINDOW + 500)).admitted).toBe(true);
      expect((await store().consume(k, 4, WINDOW, T0 + WINDOW + 749)).admitted).toBe(false);
      expect(await store().consume(k, 4, WINDOW, T0 + WINDOW + 750)).toEqual({ previous: 4, current: 3, elapsedMs: 750, admitted: true, windowStart: T0 + WINDOW });
    });

    it("a request stamped before the key's window (another replica's clock, or one that reached the store late) is counted in that window at its start, which never moves back", async () => {
      const k = key();
      for (let i = 0; i < 5; i += 1) expect((await store().consume(k, 5, WINDOW, T0 + 900 + i)).admitted).toBe(true);
      expect(await store().consume(k, 5, WINDOW, T0 + WINDOW + 10)).toMatchObject({ previous: 5, current: 0, admitted: false });
      expect(await store().consume(k, 5, WINDOW, T0 + 990)).toEqual({ previous: 5, current: 0, elapsedMs: 0, admitted: false, windowStart: T0 + WINDOW });
      // it was admitted and moved the window back: the next window's requests then found only it before them (4 of 5 admitted)
      for (let i = 0; i < 5; i += 1) expect((await store().consume(k, 5, WINDOW, T0 + WINDOW + 20 + i)).admitted).toBe(false);
    });

    it('a request counted in a later window than its stamp is given back there (release with its windowStart)', async () => {
      const k = key();
      expect((await store().consume(k, 5, WINDOW, T0 + WINDOW + 10)).admitted).toBe(true);
      const late = await store().consume(k, 5, WINDOW, T0 + 990);
      expect(late).toEqual({ previous: 0, current: 2, elapsedMs: 0, admitted: true, windowStart: T0 + WINDOW });
      await store().release(k, WINDOW, late.windowStart);
      expect(await store().consume(k, 5, WINDOW, T0 + WINDOW + 20)).toMatchObject({ previous: 0, current: 2, admitted: true });
    });

    it('forgets a window two windows on: the count starts afresh', async () => {
      const k = key();
      for (let i = 0; i < 3; i += 1) await store().consume(k, 3, WINDOW, T0 + i);
      expect(await store().consume(k, 3, WINDOW, T0 + 2 * WINDOW)).toEqual({ previous: 0, current: 1, elapsedMs: 0, admitted: true, windowStart: T0 + 2 * WINDOW });
    });

    it('Retry-After is exact: refused one millisecond before it, admitted at it', async () => {
      const k = key();
      for (let i = 0; i < 6; i += 1) await store().consume(k, 6, WINDOW, T0 + 100);
      const refused = await store().consume(k, 6, WINDOW, T0 + 100);
      const { retryAfterMs } = outcomeOf(refused, WINDOW, 6);
      expect(retryAfterMs).toBeGreaterThan(WINDOW - 100);
      expect((await store().consume(k, 6, WINDOW, T0 + 100 + retryAfterMs - 1)).admitted).toBe(false);
      expect((await store().consume(k, 6, WINDOW, T0 + 100 + retryAfterMs)).admitted).toBe(true);
    });

    it('concurrent requests of one key: exactly `limit` are admitted', async () => {
      const k = key();
      const outcomes = await Promise.all(Array.from({ length: 40 }, (_, i) => store().consume(k, 15, WINDOW, T0 + 300 + (i % 5))));
      expect(outcomes.filter((outcome) => outcome.admitted)).toHaveLength(15);
      expect((await store().consume(k, 15, WINDOW, T0 + 310)).current).toBe(15);
    });

    it('requests of one key in the same millisecond and tick: admitted as if one after another', async () => {
      const k = key();
      await store().consume(k, 4, WINDOW, T0 + 400);
      const outcomes = await Promise.all(Array.from({ length: 9 }, () => store().consume(k, 4, WINDOW, T0 + 500)));
      const admitted = outcomes.filter((outcome) => outcome.admitted);
      expect(admitted.map((outcome) => outcome.current).sort()).toEqual([2, 3, 4]);
      expect(outcomes.filter((outcome) => !outcome.admitted)).toEqual(Array.from({ length: 6 }, () => ({ previous: 0, current: 4, elapsedMs: 500, admitted: false, windowStart: T0 })));
    });
  });
}
