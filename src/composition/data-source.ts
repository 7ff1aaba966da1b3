/** The composition root's data source: the infrastructure's migrations with every module's entities. */
import { DataSource, DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from '../infrastructure/database/migrations';
import { listenForErrors } from '../infrastructure/database/pooled-connection-errors';
import { ENTITIES } from './typeorm.transaction-scope';

export function dataSourceOptions(url: string): DataSourceOptions {
  return { type: 'postgres', url, entities: ENTITIES, migrations: MIGRATIONS, migrationsTableName: 'migrations', synchronize: false, logging: false, extra: { max: 10, onConnect: listenForErrors } };
}

/** Runs pending migrations under an advisory lock, so replicas starting together migrate once. */
export async function migrate(url: string): Promise<DataSource> {
  const dataSource = await new DataSource(dataSourceOptions(url)).initialize();
  const runner = dataSource.createQueryRunner();
  try {
    await runner.query('SELECT pg_advisory_lock(727274)');
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await runner.query('SELECT pg_advisory_unlock(727274)').catch(() => undefined);
    await runner.release();
  }
  return dataSource;
}
