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
});
