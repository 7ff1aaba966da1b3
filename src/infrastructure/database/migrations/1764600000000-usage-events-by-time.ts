import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The index the hourly prune of old requests reads (UsagePruner), built CONCURRENTLY, outside a
 * transaction: built in one, it held every writer of usage_events (each API process's usage flush)
 * for as long as it took on a large table. A build cut short leaves an invalid index, dropped first.
 */
export class UsageEventsByTime1764600000000 implements MigrationInterface {
  name = 'UsageEventsByTime1764600000000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    const invalid: unknown[] = await queryRunner.query(`SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 'usage_events_by_time' AND NOT i.indisvalid`);
    if (invalid.length) await queryRunner.query(`DROP INDEX CONCURRENTLY usage_events_by_time`);
    await queryRunner.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS usage_events_by_time ON usage_events (created_at)`);
  }

  // not CONCURRENTLY: TypeORM reverts in a transaction whatever `transaction` says, and dropping takes a moment
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS usage_events_by_time`);
  }
}
