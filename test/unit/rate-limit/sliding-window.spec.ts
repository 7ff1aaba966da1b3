import { InMemoryRateLimitStore } from '../../../src/modules/rate-limit/adapters/in-memory/in-memory.rate-limit-store';
import { outcomeOf } from '../../../src/modules/rate-limit/domain/sliding-window';

const WINDOW = 60_000;
const T0 = 1_900_000_020_000; // a window start (a multiple of WINDOW)

describe('sliding window: what the headers say', () => {
  it('counts a burst down one by one, also right after a window boundary', async () => {
    for (const start of [T0 + 1000, T0 + WINDOW - 3]) {
      const store = new InMemoryRateLimitStore();
      const remaining: number[] = [];
      for (let i = 0; i < 6; i += 1) remaining.push(outcomeOf(await store.consume('k', 6, WINDOW, start + i), WINDOW, 6).remaining);
      expect(remaining).toEqual([5, 4, 3, 2, 1, 0]);
      const refused = outcomeOf(await store.consume('k', 6, WINDOW, start + 6), WINDOW, 6);
      expect(refused).toMatchObject({ admitted: false, remaining: 0 });
    }
  });

  it('Reset is the end of the current window; Retry-After at most a window and a share of it', async () => {
    const store = new InMemoryRateLimitStore();
    for (let i = 0; i < 6; i += 1) await store.consume('k', 6, WINDOW, T0 + 10_000);
    const refused = outcomeOf(await store.consume('k', 6, WINDOW, T0 + 10_000), WINDOW, 6);
    expect(refused.resetMs).toBe(WINDOW - 10_000);
    // the burst fades over the next window: one more request once 6 * (1 - s / 60 s) + 1 <= 6, s = 10 s
    expect(refused.retryAfterMs).toBe(WINDOW - 10_000 + 10_000);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(WINDOW * (1 + 1 / 6));
  });

  it('a previous window that fills the limit alone refuses until enough of it has slid away', async () => {
    const store = new InMemoryRateLimitStore();
    for (let i = 0; i < 10; i += 1) await store.consume('k', 10, WINDOW, T0 + WINDOW - 100);
    const refused = outcomeOf(await store.consume('k', 10, WINDOW, T0 + WINDOW + 1000), WINDOW, 10);
    expect(refused.admitted).toBe(false);
    expect(refused.retryAfterMs).toBe(6000 - 1000); // 10 * (1 - e / 60 s) + 1 <= 10 from e = 6 s
  });
});
