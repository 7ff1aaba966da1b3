import { MigrationInterface, QueryRunner } from 'typeorm';

/** The upload a pending or processing job reads, from its video_url: retention's query (TypeOrmRetentionStore) compares this very expression. */
const UPLOAD_READ_BY_JOB = `substring(video_url from '/v1/uploads/(vid_[0-9A-Za-z]{26})$')`;

export const BUILT = [
  // Retention looked for the jobs reading an upload through the whole of a jobs index, per upload:
  // 281-469 ms a claim, 4 s a batch with 21,000 active jobs (measured in review); 0.3 ms and 1 ms now.
  ['jobs_reading_upload', `ON jobs ((${UPLOAD_READ_BY_JOB})) WHERE status IN ('pending', 'processing')`],
  // a key's jobs of one status, in the list's own order (id too), its page's ids read from the index alone
  ['jobs_by_key_status_created_id', `ON jobs (api_key_id, status, created_at DESC, id DESC)`],
  // the usage summary's sums, read from the indexes alone (893 ms to 92-105 ms for a key's 90 days of charges)
  ['credit_ledger_charges_by_key', `ON credit_ledger (api_key_id, created_at) INCLUDE (amount) WHERE kind = 'charge'`],
  ['job_events_counts_by_key', `ON job_events (api_key_id, created_at) INCLUDE (kind, seconds)`],
  // the hourly prune of deliveries sent or failed long ago (WebhookDeliveryPruner): the table kept every body for good (2.6 GB at 1.9M)
  ['webhook_deliveries_finished', `ON webhook_deliveries (finished_at) WHERE status <> 'pending'`],
] as const;

/** the indexes the new ones replace (the same leading columns) */
const REPLACED = [
  ['jobs_by_key_status_created', `ON jobs (api_key_id, status, created_at DESC)`],
  ['job_events_by_key', `ON job_events (api_key_id, created_at)`],
] as const;

/**
 * Indexes for tables of millions of rows, built CONCURRENTLY, outside a transaction, so that no
 * writer waits for them. A build cut short leaves an invalid index, dropped and built again.
 */
export class IndexesAtScale1764800000000 implements MigrationInterface {
  name = 'IndexesAtScale1764800000000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const [name, definition] of BUILT) {
      const invalid: unknown[] = await queryRunner.query(`SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = $1 AND NOT i.indisvalid`, [name]);
      if (invalid.length) await queryRunner.query(`DROP INDEX CONCURRENTLY ${name}`);
      await queryRunner.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name} ${definition}`);
    }
    for (const [name] of REPLACED) await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
  }

  // plain, not CONCURRENTLY: TypeORM reverts in a transaction whatever `transaction` says
  async down(queryRunner: QueryRunner): Promise<void> {
    for (const [name, definition] of REPLACED) await queryRunner.query(`CREATE INDEX IF NOT EXISTS ${name} ${definition}`);
    for (const [name] of BUILT) await queryRunner.query(`DROP INDEX IF EXISTS ${name}`);
  }
}
