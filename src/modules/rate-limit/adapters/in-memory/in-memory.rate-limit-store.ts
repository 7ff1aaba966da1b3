import { admits, countsAt, WindowCounts, windowStartOf } from '../../domain/sliding-window';
import { RateLimitStore } from '../../ports/rate-limit-store';

interface Counts {
  start: number;
  previous: number;
  current: number;
  windowMs: number;
}

/** Counts in this process only: for tests, and for a single API process without Redis. */
export class InMemoryRateLimitStore extends RateLimitStore {
  private readonly counts = new Map<string, Counts>();
  private lastSweep = 0;

  async consume(key: string, limit: number, windowMs: number, nowMs: number): Promise<WindowCounts> {
    this.sweep(nowMs);
    const { start, elapsedMs, previous, current } = countsAt(this.counts.get(key), nowMs, windowMs);
    const admitted = admits(previous, current, elapsedMs, windowMs, limit);
    const counted = current + (admitted ? 1 : 0);
    this.counts.set(key, { start, previous, current: counted, windowMs });
    return { previous, current: counted, elapsedMs, admitted, windowStart: start };
  }

  async release(key: string, windowMs: number, admittedAtMs: number): Promise<void> {
    const counts = this.counts.get(key);
    const start = windowStartOf(admittedAtMs, windowMs);
    if (counts?.start === start) counts.current = Math.max(0, counts.current - 1);
    else if (counts?.start === start + windowMs) counts.previous = Math.max(0, counts.previous - 1);
  }

  async close(): Promise<void> {
    this.counts.clear();
  }

  /** Forgets keys whose counts have slid out entirely (two windows old), at most once a second. */
  private sweep(nowMs: number): void {
    if (nowMs - this.lastSweep < 1000) return;
    this.lastSweep = nowMs;
    for (const [key, counts] of this.counts) if (counts.start + 2 * counts.windowMs <= nowMs) this.counts.delete(key);
  }
}
