/** The composition root's data source: the infrastructure's migrations with every module's entities. */
import { hostname } from 'node:os';
import { DataSource, DataSourceOptions, QueryRunner } from 'typeorm';
import { oneAtATime } from '../common/one-at-a-time';
import { MIGRATIONS } from '../infrastructure/database/migrations';
import { listenForErrors } from '../infrastructure/database/pooled-connection-errors';
import { ENTITIES } from './typeorm.transaction-scope';

export function dataSourceOptions(url: string): DataSourceOptions {
  // each migration in its own transaction, or none where it says so (an index built CONCURRENTLY): the
  // TypeORM CLI's default ("all") refused to run such a migration at all
  return { type: 'postgres', url, applicationName: `backdrop@${hostname()}:${process.pid}`.slice(0, 63), entities: ENTITIES, migrations: MIGRATIONS, migrationsTableName: 'migrations', migrationsTransactionMode: 'each', synchronize: false, logging: false, extra: { max: 10, onConnect: listenForErrors } };
}

const MIGRATION_LOCK = 727274;
const MIGRATION_LOCK_POLL_MS = 250;
/** how often a process waiting for the lock says who holds it */
const MIGRATION_LOCK_REPORT_MS = 30_000;

/** where the migration's progress is said: a server's log; nowhere by default (tests, the admin CLI) */
export type MigrationLog = (line: string) => void;
const silent: MigrationLog = () => undefined;

/**
 * Takes the migration lock by trying it until it is free. A process blocked in pg_advisory_lock
 * holds a snapshot for as long as it waits, and an index built CONCURRENTLY by the process holding
 * the lock waits for every older snapshot: two processes starting together waited on each other for
 * good. Between tries, the waiting connection holds none.
 */
async function takeMigrationLock(runner: QueryRunner, log: MigrationLog): Promise<void> {
  let saidAt = 0;
  for (;;) {
    const [{ locked }] = (await runner.query('SELECT pg_try_advisory_lock($1) AS locked', [MIGRATION_LOCK])) as Array<{ locked: boolean }>;
    if (locked) return;
    if (Date.now() - saidAt >= MIGRATION_LOCK_REPORT_MS) {
      saidAt = Date.now();
      log(`waiting for the migration lock, held by ${await migrationLockHolder(runner)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, MIGRATION_LOCK_POLL_MS));
  }
}

/** who holds the migration lock, and since when: a wait for it (an index build outlasting a probe) said nothing */
async function migrationLockHolder(runner: QueryRunner): Promise<string> {
  const [holder] = (await runner
    .query(
      `SELECT a.pid, a.application_name, a.client_addr, a.state, a.backend_start FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.classid = 0 AND l.objid = $1 AND l.objsubid = 1 AND l.granted`,
      [MIGRATION_LOCK],
    )
    .catch(() => [])) as Array<{ pid: number; application_name: string; client_addr: string | null; state: string; backend_start: Date }>;
  return holder ? `process ${holder.pid} (${holder.application_name || 'no application name'} from ${holder.client_addr ?? 'a local socket'}, ${holder.state}, connected since ${holder.backend_start.toISOString()})` : 'a process that has just let it go';
}

/** how often the lock's holder looks for processes blocked on the lock while it migrates */
const LOCK_WAITERS_CHECK_MS = 500;

/**
 * Cancels the statements blocked in pg_advisory_lock on the migration lock, and says how many. Only
 * a version from before takeMigrationLock blocks there, and its snapshot stalls an index built
 * CONCURRENTLY for as long as it waits, which is until that build ends: an upgrade started while
 * such a process started hung for good (seen in review). The process canceled fails its start, and
 * migrates (or finds nothing to do) when it starts again.
 */
export async function cancelMigrationLockWaiters(runner: QueryRunner): Promise<number> {
  const canceled = (await runner.query(
    `SELECT pg_cancel_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND classid = 0 AND objid = $1 AND objsubid = 1 AND NOT granted AND pid <> pg_backend_pid()`,
    [MIGRATION_LOCK],
  )) as unknown[];
  return canceled.length;
}

/** Runs pending migrations under an advisory lock, so replicas starting together migrate once. */
export function migrate(url: string, log: MigrationLog = silent): Promise<DataSource> {
  return underMigrationLock(url, (dataSource) => runPending(dataSource, log), log);
}

/** Applies the pending migrations under the lock, and names those this call applied (not those a server starting beside it did). */
export async function applyPendingMigrations(url: string): Promise<string[]> {
  let applied: string[] = [];
  const dataSource = await underMigrationLock(url, async (source) => {
    applied = await runPending(source, silent);
  });
  await dataSource.destroy();
  return applied;
}

/** runs the pending migrations, each in its own transaction, saying which and how long; names those it applied */
async function runPending(dataSource: DataSource, log: MigrationLog): Promise<string[]> {
  const { pending } = await migrationStatus(dataSource);
  if (pending.length) log(`applying ${pending.length} migrations: ${pending.join(', ')}`);
  const started = Date.now();
  const applied = await dataSource.runMigrations({ transaction: 'each' });
  if (applied.length) log(`applied ${applied.length} migrations in ${Date.now() - started} ms`);
  return applied.map((migration) => migration.name);
}

/**
 * Reverts the newest migration applied, under the lock the servers take to migrate (the TypeORM
 * CLI takes none: beside a server starting, one of them failed or deadlocked in review), and names it.
 */
export async function revertNewestMigration(url: string): Promise<string | null> {
  let reverted: string | null = null;
  const dataSource = await underMigrationLock(url, async (source) => {
    // no migrations table: nothing was ever applied
    const [newest] = (await source.query(`SELECT name FROM migrations ORDER BY id DESC LIMIT 1`).catch(() => [])) as Array<{ name: string }>;
    if (!newest) return;
    await source.undoLastMigration({ transaction: 'each' });
    reverted = newest.name;
  });
  await dataSource.destroy();
  return reverted;
}

/** the migrations applied, oldest first, and those this version has that are not */
export async function migrationStatus(on: string | DataSource): Promise<{ applied: string[]; pending: string[] }> {
  const dataSource = typeof on === 'string' ? await new DataSource(dataSourceOptions(on)).initialize() : on;
  try {
    const exists = ((await dataSource.query(`SELECT to_regclass('migrations') IS NOT NULL AS exists`)) as Array<{ exists: boolean }>)[0].exists;
    const applied = exists ? ((await dataSource.query(`SELECT name FROM migrations ORDER BY id`)) as Array<{ name: string }>).map((row) => row.name) : [];
    return { applied, pending: dataSource.migrations.map((migration) => migration.name ?? migration.constructor.name).filter((name) => !applied.includes(name)) };
  } finally {
    if (typeof on === 'string') await dataSource.destroy();
  }
}

async function underMigrationLock(url: string, work: (dataSource: DataSource) => Promise<unknown>, log: MigrationLog = silent): Promise<DataSource> {
  const dataSource = await new DataSource(dataSourceOptions(url)).initialize();
  const runner = dataSource.createQueryRunner();
  let waitersCheck: NodeJS.Timeout | undefined;
  try {
    await takeMigrationLock(runner, log);
    const cancelWaiters = oneAtATime(() => cancelMigrationLockWaiters(runner).catch(() => 0));
    waitersCheck = setInterval(() => void cancelWaiters(), LOCK_WAITERS_CHECK_MS);
    await work(dataSource);
  } finally {
    clearInterval(waitersCheck);
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await runner.release();
  }
  return dataSource;
}
