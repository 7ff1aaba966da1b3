import type { WindowCounts } from '../domain/sliding-window';

/**
 * Where the rate-limit counts live, shared by every API process: Redis when REDIS_URL is set,
 * otherwise Postgres; in memory for one process (tests, single-process setups). One call per
 * request: it applies the sliding window (domain/sliding-window.ts) atomically and counts the
 * request when it is admitted.
 */
export abstract class RateLimitStore {
  /** `nowMs` is the caller's clock (the API processes' clocks, kept in step by NTP, decide the windows). */
  abstract consume(key: string, limit: number, windowMs: number, nowMs: number): Promise<WindowCounts>;
  /**
   * Gives back one request consume admitted at `admittedAtMs` (a job start the route then refused):
   * the count of the window it was counted in, current or, once the window slid, previous; never below 0.
   */
  abstract release(key: string, windowMs: number, admittedAtMs: number): Promise<void>;
  abstract close(): Promise<void>;
}
