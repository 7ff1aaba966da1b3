import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { Client } from 'pg';
import { ensureBuilt, ROOT } from '../support/processes';
import { createTestDatabase, TestDatabase } from '../support/test-database';

/**
 * A process holding a connection taken from the app's pool between queries, as the app's data
 * source makes it (dist): it prints the connection's backend pid, then lives 1.5 s more.
 */
const HOLDER = `
const { DataSource } = require('typeorm');
const { dataSourceOptions } = require(${JSON.stringify(path.join(ROOT, 'dist/src/composition/data-source'))});
(async () => {
  const dataSource = await new DataSource(dataSourceOptions(process.argv[1])).initialize();
  const taken = await dataSource.driver.master.connect();
  const { rows } = await taken.query('SELECT pg_backend_pid() AS pid');
  console.log(rows[0].pid);
  setTimeout(async () => {
    taken.release(true);
    console.log('served after:', JSON.stringify(await dataSource.query('SELECT 1 AS one')));
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

  it('an error on a connection taken out of the pool between queries does not end the process; the pool serves on', async () => {
    const holder = execFile(process.execPath, ['-e', HOLDER, database.url], { cwd: ROOT });
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
