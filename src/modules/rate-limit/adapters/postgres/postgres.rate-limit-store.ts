import type { DataSource } from 'typeorm';
import { Sweeper } from '../../../../common/sweeper';
import { WindowCounts, windowStartOf } from '../../domain/sliding-window';
import { RateLimitStore } from '../../ports/rate-limit-store';

/**
 * Rate-limit counts in Postgres (REDIS_URL unset), shared by every API process: one call per request
 * of the function rate_limit_consume (migrations SlidingWindowRateLimits, RateLimitWindowNeverBack), which applies the sliding
 * window under the key's row lock.
 */
export class PostgresRateLimitStore extends RateLimitStore {
  private readonly sweeper = new Sweeper(60_000, () => this.dataSource.query(`DELETE FROM rate_limit_windows WHERE expires_at < now()`));

  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async consume(key: string, limit: number, windowMs: number, nowMs: number): Promise<WindowCounts> {
    this.sweeper.maybeSweep();
    const rows: Array<{ previous_hits: number; current_hits: number; elapsed_ms: string; admitted: boolean; window_start: string }> = await this.dataSource.query(
      `SELECT previous_hits, current_hits, elapsed_ms, admitted, window_start FROM rate_limit_consume($1, $2, $3, $4)`,
      [key, limit, Math.round(windowMs), Math.round(nowMs)],
    );
    const row = rows[0];
    return { previous: Number(row.previous_hits), current: Number(row.current_hits), elapsedMs: Number(row.elapsed_ms), admitted: row.admitted, windowStart: Number(row.window_start) };
  }

  async release(key: string, windowMs: number, admittedAtMs: number): Promise<void> {
    const window = Math.round(windowMs);
    const start = windowStartOf(Math.round(admittedAtMs), window);
    await this.dataSource.query(
      `UPDATE rate_limit_windows SET
         current_hits = CASE WHEN window_start = $2::bigint THEN GREATEST(current_hits - 1, 0) ELSE current_hits END,
         previous_hits = CASE WHEN window_start = $2::bigint + $3::bigint THEN GREATEST(previous_hits - 1, 0) ELSE previous_hits END
       WHERE key = $1 AND window_start IN ($2::bigint, $2::bigint + $3::bigint)`,
      [key, start, window],
    );
  }

  /** The DataSource is the application's; nothing of its own to close. */
  async close(): Promise<void> {}
}
