import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { UsageCounters } from '../../domain/usage-summary';
import { RequestRecord, UsageEventView, UsageStore } from '../../ports/usage-store';
import { deleteInBatches } from '../../../../infrastructure/database/delete-in-batches';

const DAY = `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;
/** requests deleted by one statement of pruneRequests */
const PRUNE_BATCH = 10_000;

@Injectable()
export class TypeOrmUsageStore extends UsageStore {
  constructor(@InjectDataSource() private readonly db: DataSource) {
    super();
  }

  /**
   * One statement for the whole batch, the same text every time: a column of values per parameter
   * (unnest), rather than a VALUES list of 8 parameters a row that Postgres parses anew per batch.
   * The days' counts follow by the table's trigger (migration UsageDaily1764500000000).
   */
  async insertRequests(records: readonly RequestRecord[]): Promise<void> {
    if (!records.length) return;
    const column = <T>(of: (record: RequestRecord) => T): T[] => records.map(of);
    await this.db.query(
      `INSERT INTO usage_events (api_key_id, method, path, status_code, duration_ms, job_id, credits, created_at)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::integer[], $5::float8[], $6::text[], $7::bigint[], $8::timestamptz[])`,
      [
        column((record) => record.apiKeyId),
        column((record) => record.method),
        column((record) => record.path),
        column((record) => record.statusCode),
        column((record) => record.durationMs),
        column((record) => record.jobId),
        column((record) => record.credits),
        column((record) => record.at.toISOString()),
      ],
    );
  }

  /**
   * The jobs, the charges and the requests of each day in one statement, so on one snapshot: read one
   * after another, a job completing between the reads had its charge counted and not its completion
   * (44 of 264 summaries disagreed in review while 40 jobs completed). Each part keeps its own index.
   */
  async dailyCounters(apiKeyId: string, from: Date): Promise<Array<Partial<UsageCounters> & { date: string }>> {
    type Row = { part: 'jobs' | 'credits' | 'requests'; date: string; total_jobs: string | null; completed_jobs: string | null; failed_jobs: string | null; video_seconds: string | null; amount: string | null };
    const rows: Row[] = await this.db.query(
      `SELECT 'jobs' AS part, ${DAY} AS date,
              COUNT(*) FILTER (WHERE kind = 'created') AS total_jobs,
              COUNT(*) FILTER (WHERE kind = 'completed') AS completed_jobs,
              COUNT(*) FILTER (WHERE kind = 'failed') AS failed_jobs,
              SUM(seconds) FILTER (WHERE kind = 'completed') AS video_seconds,
              NULL::numeric AS amount
         FROM job_events WHERE api_key_id = $1 AND created_at >= $2 GROUP BY 2
       UNION ALL
       SELECT 'credits', ${DAY}, NULL, NULL, NULL, NULL, -SUM(amount)
         FROM credit_ledger WHERE api_key_id = $1 AND kind = 'charge' AND created_at >= $2 GROUP BY 2
       UNION ALL
       SELECT 'requests', to_char(day, 'YYYY-MM-DD'), NULL, NULL, NULL, NULL, requests
         FROM usage_daily WHERE api_key_id = $1 AND day >= ($2::timestamptz AT TIME ZONE 'UTC')::date`,
      [apiKeyId, from],
    );
    return rows.map((row) => {
      if (row.part === 'credits') return { date: row.date, credits_used: Number(row.amount) };
      if (row.part === 'requests') return { date: row.date, requests: Number(row.amount) };
      return { date: row.date, total_jobs: Number(row.total_jobs), completed_jobs: Number(row.completed_jobs), failed_jobs: Number(row.failed_jobs), video_seconds: Number(row.video_seconds ?? 0) };
    });
  }

  /**
   * Oldest first, a batch at a time (deleteInBatches), which keeps the batch on usage_events_by_time:
   * without an order, statistics gone stale made the planner scan the whole table for the last,
   * short batch (1.3-1.5 s an hour in every API process at 6M rows).
   */
  pruneRequests(before: Date): Promise<number> {
    const oldest = `SELECT id FROM usage_events WHERE created_at < $1 ORDER BY created_at LIMIT $2`;
    return deleteInBatches((sql, parameters) => this.db.query(sql, parameters), 'usage_events', oldest, [before], PRUNE_BATCH);
  }

  async recentRequests(apiKeyId: string, limit: number): Promise<UsageEventView[]> {
    const rows: Array<{ id: string; created_at: Date; method: string; path: string; status_code: number; job_id: string | null; credits: string; duration_ms: number }> = await this.db.query(
      `SELECT id, created_at, method, path, status_code, job_id, credits, duration_ms FROM usage_events WHERE api_key_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
      [apiKeyId, limit],
    );
    return rows.map((row) => ({
      id: Number(row.id),
      created_at: row.created_at.toISOString(),
      method: row.method,
      path: row.path,
      status_code: row.status_code,
      job_id: row.job_id,
      credits: Number(row.credits),
      duration_ms: Math.round(row.duration_ms * 100) / 100,
    }));
  }
}
