import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions, migrate } from '../../src/composition/data-source';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { MIGRATIONS } from '../../src/infrastructure/database/migrations';
import { consumeFunction } from '../../src/infrastructure/database/migrations/1764300000000-rate-limit-window-never-back';
import { IndexesAtScale1764800000000 } from '../../src/infrastructure/database/migrations/1764800000000-indexes-at-scale';
import { RepairEditedMigrations1764900000000 } from '../../src/infrastructure/database/migrations/1764900000000-repair-edited-migrations';

const MIGRATIONS_DIR = path.join(__dirname, '../../src/infrastructure/database/migrations');

/**
 * Each migration's text as it shipped: a database that ran a migration never runs it again, so a
 * change to a shipped one reaches no database that has it (four were changed so; 1764900000000
 * repairs them). A new migration adds its line here; a changed one is a new migration instead.
 */
const SHIPPED: Record<string, string> = {
  '1763700000000-initial-schema.ts': '4b26b7e820fd8efab8e6cb43de249aeb22c74997b35ceaf68ef16dce0bb417bc',
  '1763750000000-credits-usage-webhooks.ts': 'e7589d5c85bade3817a486e0cb01520cf240531d6dc01eb95c7d09eea3fcefd8',
  '1763800000000-idempotency-and-rate-limits.ts': '6b3a50b1568cb0efe163aecbecbf08749379d1cbda465f169e74bab2d92a2599',
  '1763850000000-dispatch-outbox-and-retention.ts': '97923049e77aa57252a6c7b0182d6818589b291e42fc5a5b2d64c9aae4ab12af',
  '1763910000000-sliding-window-rate-limits.ts': '32c3270666eae65d89ef6d8f42e7a88336d89b371620fee288031a43366b1f2a',
  '1763920000000-api-key-change-notifications.ts': 'bbcc5e3b87c9a4a40131319d2c165a79cff947b986504c03d29271ef1577cc92',
  '1764000000000-webhook-secret-rotation.ts': '7d89747af75eb9d5c63a588b4b6f7a7dc9959ad3b4e1b03fa0c86c3138fc7652',
  '1764100000000-idempotency-body-digest.ts': 'b171a08499fed0337c0c8e282c378bba81d63b5d0867dffb4220b9bd5d5fb2fd',
  '1764200000000-idempotency-claim-id.ts': '0420bbb1be3886066e0e4c287aebacb0f4292963a1cfe85dfe1271e8ee0be73a',
  '1764300000000-rate-limit-window-never-back.ts': '98fff6197b5448043f66deef309075be2e511741508d16b0674317423a27e99f',
  '1764400000000-chunk-progress.ts': '237bb1047f80c49fa3d2ca45b9967ed2713bb032a79b0189e68b5afd667258a3',
  '1764500000000-usage-daily.ts': 'e86798fb358a94c996caeeeee97313644a14785ca8c969258e02e431f825dd76',
  '1764600000000-usage-events-by-time.ts': 'c642ab1eb10b351e58d4e2e88521b9a5e89e132f9ae65e0059595cd97fe5b91c',
  '1764700000000-remote-runs.ts': 'e0b5b03b7ee340e3c27622d68f96c1e004539d64c161b6fab093a18305ba9871',
  '1764800000000-indexes-at-scale.ts': 'bcb11c11b7ef75276a12b90090bc29daeb94d0ff98e0ce2a593a7bbe0636be43',
  '1764900000000-repair-edited-migrations.ts': '39a761ad63eaf006c00d7d7e08c1f515fc59f2ba86257002a37047eb99cd0340',
  '1765000000000-idempotency-created-resource.ts': '22223b631e8c4ee6883342032a2607ddfe192a8d8d7f6531fa2aa51d69d65910',
  '1765100000000-jobs-waiting-in-queue.ts': '30d27e2f64b9838d56eceaa247f10d078e38cc1a2e0a32ca43878deb8d6e3f06',
  '1765200000000-jobs-waiting-by-key.ts': '8057c8ee04a14d070c0f69ce85a7bbb81579679ba0ccf307b28b94f99d8a2b21',
  '1765300000000-uploads-frame-rate.ts': '6341042e3dfe8ee07e1ea859e396db96b5f69540691b431d99782044af5c1bb1',
};
import { eventually } from '../support/test-app';
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

  it('no shipped migration is changed, and every migration is pinned', () => {
    const files = readdirSync(MIGRATIONS_DIR).filter((name) => /^\d+-.+\.ts$/.test(name));
    const digests = Object.fromEntries(files.map((name) => [name, createHash('sha256').update(readFileSync(path.join(MIGRATIONS_DIR, name))).digest('hex')]));
    expect(digests).toEqual(SHIPPED);
  });

  it('repairs a database migrated by the earlier versions of the four changed migrations, and changes nothing on one migrated by the current ones', async () => {
    const source = await new DataSource({ ...dataSourceOptions(database.url), migrations: MIGRATIONS.slice(0, MIGRATIONS.indexOf(RepairEditedMigrations1764900000000)) }).initialize();
    opened.push(source);
    await source.runMigrations();
    const key = (await source.query(`INSERT INTO api_keys (client_id, key_hash, key_fingerprint) VALUES ('c', repeat('a', 64), repeat('b', 12)) RETURNING id`))[0].id;
    // the schema as the earlier versions left it
    await source.query(`ALTER TABLE api_keys DROP COLUMN previous_webhook_secrets, ADD COLUMN previous_webhook_secret text, ADD COLUMN previous_webhook_secret_until timestamptz`);
    await source.query(`UPDATE api_keys SET previous_webhook_secret = 'whsec_b2xk', previous_webhook_secret_until = now() + interval '1 hour' WHERE id = $1`, [key]);
    await source.query(`DROP FUNCTION rate_limit_consume(text, bigint, bigint, bigint)`);
    await source.query(consumeFunction(false));
    await source.query(`DROP TRIGGER usage_daily_count ON usage_events`);
    // a request of the days the earlier version's database went uncounted
    await source.query(`INSERT INTO usage_events (api_key_id, method, path, status_code, duration_ms) VALUES ($1, 'GET', '/v1/jobs', 200, 1)`, [key]);
    await source.query(`DROP INDEX webhook_deliveries_finished`);

    const repaired = await migrate(database.url);
    opened.push(repaired);
    expect(await applied(repaired)).toBe(MIGRATIONS.length);
    const [secrets] = await repaired.query(`SELECT previous_webhook_secrets FROM api_keys WHERE id = $1`, [key]);
    expect(secrets.previous_webhook_secrets).toEqual([{ secret: 'whsec_b2xk', validUntil: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) }]);
    expect(new Date(secrets.previous_webhook_secrets[0].validUntil).getTime()).toBeGreaterThan(Date.now());
    const [consumed] = await repaired.query(`SELECT * FROM rate_limit_consume('k', 10, 1000, 5000)`);
    expect(consumed).toMatchObject({ admitted: true, window_start: '5000' });
    // counted again from the requests kept, and counted from now on
    expect((await repaired.query(`SELECT requests FROM usage_daily WHERE api_key_id = $1`, [key]))[0].requests).toBe('1');
    await repaired.query(`INSERT INTO usage_events (api_key_id, method, path, status_code, duration_ms) VALUES ($1, 'GET', '/v1/jobs', 200, 1)`, [key]);
    expect((await repaired.query(`SELECT requests FROM usage_daily WHERE api_key_id = $1`, [key]))[0].requests).toBe('2');
    expect(await repaired.query(`SELECT indexdef FROM pg_indexes WHERE indexname = 'webhook_deliveries_finished'`)).toHaveLength(1);

    // run again on a database the current versions made: nothing changes
    const schemaBefore = await repaired.query(`SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, 2`);
    const runner = repaired.createQueryRunner();
    await new RepairEditedMigrations1764900000000().up(runner).finally(() => runner.release());
    expect(await repaired.query(`SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, 2`)).toEqual(schemaBefore);
  }, 60_000);

  it('says who holds the migration lock while it waits for it, and which migrations it applies (an upgrade waiting on a lock said nothing)', async () => {
    const holder = new Client({ connectionString: database.url, application_name: 'a long upgrade' });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock(727274)');
      const holderPid = (await holder.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      const lines: string[] = [];
      const migrating = migrate(database.url, (line) => lines.push(line));
      await eventually(async () => (lines.length ? true : undefined), 5000);
      expect(lines[0]).toMatch(new RegExp(`^waiting for the migration lock, held by process ${holderPid} \\(a long upgrade from`));
      await holder.query('SELECT pg_advisory_unlock(727274)');
      opened.push(await migrating);
      expect(lines.slice(1)).toEqual([`applying ${MIGRATIONS.length} migrations: ${MIGRATIONS.map((migration) => migration.name).join(', ')}`, expect.stringMatching(new RegExp(`^applied ${MIGRATIONS.length} migrations in \\d+ ms$`))]);
    } finally {
      await holder.end();
    }
  }, 60_000);

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
    const before = await new DataSource({ ...dataSourceOptions(database.url), migrations: MIGRATIONS.slice(0, MIGRATIONS.indexOf(IndexesAtScale1764800000000)) }).initialize();
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
