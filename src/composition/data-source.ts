/** The composition root's data source: the infrastructure's migrations with every module's entities. */
import { DataSource, DataSourceOptions, QueryRunner } from 'typeorm';
import { MIGRATIONS } from '../infrastructure/database/migrations';
import { listenForErrors } from '../infrastructure/database/pooled-connection-errors';
import { ENTITIES } from './typeorm.transaction-scope';

export function dataSourceOptions(url: string): DataSourceOptions {
  // each migration in its own transaction, or none where it says so (an index built CONCURRENTLY): the
  // TypeORM CLI's default ("all") refused to run such a migration at all
  return { type: 'postgres', url, entities: ENTITIES, migrations: MIGRATIONS, migrationsTableName: 'migrations', migrationsTransactionMode: 'each', synchronize: false, logging: false, extra: { max: 10, onConnect: listenForErrors } };
}

const MIGRATION_LOCK = 727274;
const MIGRATION_LOCK_POLL_MS = 250;

/**
 * Takes the migration lock by trying it until it is free. A process blocked in pg_advisory_lock
 * holds a snapshot for as long as it waits, and an index built CONCURRENTLY by the process holding
 * the lock waits for every older snapshot: two processes starting together waited on each other for
 * good. Between tries, the waiting connection holds none.
 */
async function takeMigrationLock(runner: QueryRunner): Promise<void> {
  for (;;) {
    const [{ locked }] = (await runner.query('SELECT pg_try_advisory_lock($1) AS locked', [MIGRATION_LOCK])) as Array<{ locked: boolean }>;
    if (locked) return;
    await new Promise((resolve) => setTimeout(resolve, MIGRATION_LOCK_POLL_MS));
  }
}

/** Runs pending migrations under an advisory lock, so replicas starting together migrate once. */
export async function migrate(url: string): Promise<DataSource> {
  const dataSource = await new DataSource(dataSourceOptions(url)).initialize();
  const runner = dataSource.createQueryRunner();
  try {
    await takeMigrationLock(runner);
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await runner.release();
  }
  return dataSource;
}
