import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The pending jobs already handed to the queue, a page at a time in id order (JobDispatchRelay's
 * check for jobs the queue lost). Built CONCURRENTLY, outside a transaction, as IndexesAtScale's.
 */
export class JobsWaitingInQueue1765100000000 implements MigrationInterface {
  name = 'JobsWaitingInQueue1765100000000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    const invalid: unknown[] = await queryRunner.query(`SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 'jobs_waiting_in_queue' AND NOT i.indisvalid`);
    if (invalid.length) await queryRunner.query(`DROP INDEX CONCURRENTLY jobs_waiting_in_queue`);
    await queryRunner.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS jobs_waiting_in_queue ON jobs (id) WHERE status = 'pending' AND dispatched_at IS NOT NULL`);
  }

  // plain, not CONCURRENTLY: TypeORM reverts in a transaction whatever `transaction` says
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS jobs_waiting_in_queue`);
  }
}
