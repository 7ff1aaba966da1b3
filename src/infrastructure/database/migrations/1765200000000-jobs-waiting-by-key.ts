import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The keys that have jobs waiting in the queue, read one key at a time (JobRepository.overFairShare
 * skips from key to key): on jobs_waiting_in_queue, by id, a key's own backlog of 100,000 was read
 * row by row at every pickup. Built CONCURRENTLY, outside a transaction, as IndexesAtScale's.
 */
export class JobsWaitingByKey1765200000000 implements MigrationInterface {
  name = 'JobsWaitingByKey1765200000000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    const invalid: unknown[] = await queryRunner.query(`SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 'jobs_waiting_by_key' AND NOT i.indisvalid`);
    if (invalid.length) await queryRunner.query(`DROP INDEX CONCURRENTLY jobs_waiting_by_key`);
    await queryRunner.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS jobs_waiting_by_key ON jobs (api_key_id) WHERE status = 'pending' AND dispatched_at IS NOT NULL`);
  }

  // plain, not CONCURRENTLY: TypeORM reverts in a transaction whatever `transaction` says
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS jobs_waiting_by_key`);
  }
}
