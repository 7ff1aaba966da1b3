import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { Client } from 'pg';
import { ensureBuilt, ROOT } from '../support/processes';
import { createTestDatabase, TestDatabase } from '../support/test-database';

/**
 * A process holding a connection taken from a pool between queries, the pool made from the app's
 * own options (dist): it prints the connection's backend pid, then lives 1.5 s more.
 */
const HOLDER = `
const { DataSource } = require('typeorm');
const { Pool } = require('pg');
const { dataSourceOptions } = require(${JSON.stringify(path.join(ROOT, 'dist/src/composition/data-source'))});
const { bullConnectionOptions } = require(${JSON.stringify(path.join(ROOT, 'dist/src/infrastructure/queue/queue-connection'))});
const [url, which] = process.argv.slice(1);
/** the app's pool, or a pool as BullMQ's Postgres backend builds it from the options the app gives it (with its pool-level listener) */
async function pool() {
  if (which === 'app') return (await new DataSource(dataSourceOptions(url)).initialize()).driver.master;
  const { schema, migrate, ...poolConfig } = bullConnectionOptions({ databaseUrl: url, namespace: 'holder' }).connection;
  const queuePool = new Pool(poolConfig);
  queuePool.on('error', () => undefined);
  return queuePool;
}
(async () => {
  const connections = await pool();
  const taken = await connections.connect();
  const { rows } = await taken.query('SELECT pg_backend_pid() AS pid');
  console.log(rows[0].pid);
  setTimeout(async () => {
    taken.release(true);
    console.log('served after:', JSON.stringify((await connections.query('SELECT 1 AS one')).rows));
    process.exit(0);
  }, 1500);
})();
`;

/**
 * A connection the server ends while nobody listens on it (taken from the pool, between queries):
 * pg emits `error` on it, and with no listener that ended the process (a worker died when Postgres
 * restarted).
 */
describe('database connections the server ends', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    ensureBuilt();
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it.each(['app', 'queue'])("an error on a connection taken out of the %s's pool between queries does not end the process; the pool serves on", async (which) => {
    const holder = execFile(process.execPath, ['-e', HOLDER, database.url, which], { cwd: ROOT });
    let output = '';
    holder.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    holder.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    while (!/^\d+$/m.test(output)) await new Promise((resolve) => setTimeout(resolve, 20));
    const admin = new Client({ connectionString: database.url });
    await admin.connect();
    await admin.query('SELECT pg_terminate_backend($1)', [Number(/^(\d+)$/m.exec(output)![1])]);
    await admin.end();
    const code = await new Promise<number | null>((resolve) => holder.on('exit', resolve));
    expect({ code, output: output.replace(/^\d+\n/, '') }).toEqual({ code: 0, output: 'served after: [{"one":1}]\n' });
  }, 30000);
});
