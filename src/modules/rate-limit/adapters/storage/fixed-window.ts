import type { ThrottlerStorage } from '@nestjs/throttler';

/** What a ThrottlerStorage answers for one hit (the package does not export the record type itself). */
export type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * Both stores count requests in fixed windows: the first request of a key opens a window of `ttl` ms,
 * every request in it adds one, and the key is refused once its count passes the limit until the
 * window closes (the throttler's `blockDuration` is therefore the rest of the window).
 */
export function fixedWindowRecord(hits: number, msLeft: number, limit: number): ThrottlerStorageRecord {
  const secondsLeft = Math.max(1, Math.ceil(msLeft / 1000));
  const isBlocked = hits > limit;
  return { totalHits: hits, timeToExpire: secondsLeft, isBlocked, timeToBlockExpire: isBlocked ? secondsLeft : 0 };
}
