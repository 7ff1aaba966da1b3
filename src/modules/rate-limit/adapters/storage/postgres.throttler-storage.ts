import type { ThrottlerStorage } from '@nestjs/throttler';
import type { DataSource } from 'typeorm';
import { Sweeper } from '../../../../common/sweeper';
import { fixedWindowRecord, ThrottlerStorageRecord } from './fixed-window';

/** Rate-limit counters in Postgres (REDIS_URL unset): one atomic upsert per request, shared by every API process. */
export class PostgresThrottlerStorage implements ThrottlerStorage {
  private readonly sweeper = new Sweeper(60_000, () => this.dataSource.query(`DELETE FROM rate_limit_counters WHERE expires_at < now()`));

  constructor(private readonly dataSource: DataSource) {}

  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    this.sweeper.maybeSweep();
    const rows: Array<{ hits: number; ms_left: number }> = await this.dataSource.query(
      `INSERT INTO rate_limit_counters AS c (key, hits, expires_at) VALUES ($1, 1, now() + $2 * interval '1 millisecond')
       ON CONFLICT (key) DO UPDATE SET
         hits = CASE WHEN c.expires_at <= now() THEN 1 ELSE c.hits + 1 END,
         expires_at = CASE WHEN c.expires_at <= now() THEN excluded.expires_at ELSE c.expires_at END
       RETURNING hits, (extract(epoch FROM expires_at - now()) * 1000)::float8 AS ms_left`,
      [key, ttl],
    );
    return fixedWindowRecord(Number(rows[0].hits), Number(rows[0].ms_left), limit);
  }
}
