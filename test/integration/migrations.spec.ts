import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions, migrate } from '../../src/composition/data-source';
import { MIGRATIONS } from '../../src/infrastructure/database/migrations';
import { createTestDatabase, TestDatabase } from '../support/test-database';

/** The migrations as the server and the operator's TypeORM CLI (ormconfig.ts) run them, on a database of their own. */
describe('migrations', () => {
  let database: TestDatabase;
  const opened: DataSource[] = [];

  beforeEach(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((source) => source.destroy()));
    await database.drop();
  });

  const applied = async (source: DataSource): Promise<number> => Number((await source.query(`SELECT count(*) AS n FROM migrations`))[0].n);

  it('two processes starting at once both migrate: the one that waits for the lock holds no snapshot that an index built CONCURRENTLY waits on (they waited on each other for good)', async () => {
    const [first, second] = await Promise.all([migrate(database.url), new Promise((resolve) => setTimeout(resolve, 100)).then(() => migrate(database.url))]);
    opened.push(first, second);
    expect(await applied(first)).toBe(MIGRATIONS.length);
  }, 60_000);

  it("the operator's CLI runs every migration, reverts each one, and runs them all again (migration:run failed on the one that needs no transaction, migration:revert on its DROP INDEX)", async () => {
    const cli = await new DataSource(dataSourceOptions(database.url)).initialize();
    opened.push(cli);
    await cli.runMigrations();
    expect(await applied(cli)).toBe(MIGRATIONS.length);
    for (let left = MIGRATIONS.length - 1; left >= 0; left -= 1) {
      await cli.undoLastMigration();
      expect(await applied(cli)).toBe(left);
    }
    await cli.runMigrations();
    expect(await applied(cli)).toBe(MIGRATIONS.length);
  }, 60_000);

  it("the entities declare the schema the migrations make: TypeORM would change nothing (migration:generate proposed dropping 2 foreign keys, 5 indexes, 4 constraints, a column and 5 defaults)", async () => {
    const cli = await new DataSource(dataSourceOptions(database.url)).initialize();
    opened.push(cli);
    await cli.runMigrations();
    const changes = await cli.driver.createSchemaBuilder().log();
    expect(changes.upQueries.map((query) => query.query)).toEqual([]);
  }, 60_000);

  it('an upgrade whose index is built CONCURRENTLY finishes while a process of a version before the lock was tried starts beside it: its blocking wait for the lock is canceled (it held a snapshot the build waited for, for good)', async () => {
    const before = await new DataSource({ ...dataSourceOptions(database.url), migrations: MIGRATIONS.slice(0, -1) }).initialize();
    opened.push(before);
    await before.runMigrations();
    const client = async () => {
      const connected = new Client({ connectionString: database.url });
      await connected.connect();
      return connected;
    };
    // an old snapshot the build must first wait out (a long report), so that the old process arrives while it builds
    const reader = await client();
    await reader.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await reader.query('SELECT count(*) FROM jobs');
    const upgrading = migrate(database.url);
    const oldVersion = await client();
    try {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const oldStart = oldVersion.query('SELECT pg_advisory_lock(727274)').then(() => 'took the lock', (error: { code?: string }) => `refused ${error.code}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
      await reader.query('COMMIT');
      const upgraded = await Promise.race([upgrading, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 20_000))]);
      expect(upgraded).not.toBe('hung');
      opened.push(upgraded as DataSource);
      expect(await applied(upgraded as DataSource)).toBe(MIGRATIONS.length);
      expect(await oldStart).toBe('refused 57014');
    } finally {
      await Promise.all([reader.end(), oldVersion.end()].map((ended) => ended.catch(() => undefined)));
    }
  }, 60_000);
});
