import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { freshEnv, randomPort, RunningProcess, ROOT, SHARED_MODEL_CACHE, startProcess } from '../../support/processes';
import { createTestDatabase } from '../../support/test-database';

export interface RunningServer {
  base: string;
  key: string;
  output(): string;
  stop(): Promise<void>;
}

const ADMIN_TOKEN = 'browser-test-admin-token-0123456789';

/** The compiled server, the dashboard and the CLI (`npm test` builds first; a lone jest run builds here). */
export function ensureDashboardBuilt(): void {
  if (!existsSync(path.join(ROOT, 'dist/src/main.js')) || !existsSync(path.join(ROOT, 'dist/src/cli/backdrop.js'))) {
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
  } else if (!existsSync(path.join(ROOT, 'dist/web/index.html'))) {
    execFileSync('npm', ['run', 'build:web'], { cwd: ROOT, stdio: 'ignore' });
  }
}

/** `node dist/src/main.js` with the real engine, on a fresh database of the machine's Postgres; one key made over the admin API. */
export async function startServerOnTestDatabase(extraEnv: Record<string, string> = {}): Promise<RunningServer> {
  ensureDashboardBuilt();
  const database = await createTestDatabase();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'backdrop-ui-'));
  const port = randomPort();
  const env = freshEnv({ DATABASE_URL: database.url, ADMIN_TOKEN, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, MODEL_CACHE_DIR: SHARED_MODEL_CACHE, LOG_LEVEL: 'warn', ...extraEnv });
  const server = startProcess(['dist/src/main.js'], env);
  const base = `http://127.0.0.1:${port}`;
  const cleanUp = async () => {
    await server.stop();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await server.waitFor(/Backdrop is running at/, 120000);
    const response = await fetch(`${base}/v1/admin/keys`, {
      method: 'POST',
      headers: { 'X-Admin-Token': ADMIN_TOKEN, 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_id: 'dashboard-test', credits: 10000 }),
    });
    const created = (await response.json()) as { api_key: string };
    if (!created.api_key) throw new Error(`no key made: ${JSON.stringify(created)}`);
    return { base, key: created.api_key, output: server.output, stop: cleanUp };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}

/** `npm start` as a new user runs it: the embedded Postgres, and the development key it prints. */
export async function startEmbeddedServer(): Promise<RunningServer> {
  ensureDashboardBuilt();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'backdrop-cli-'));
  const port = randomPort();
  const env = freshEnv({ DATA_DIR: dataDir, PORT: String(port), EMBEDDED_PG_PORT: String(randomPort()), MODEL_CACHE_DIR: SHARED_MODEL_CACHE });
  const server: RunningProcess = startProcess(['dist/src/main.js'], env);
  const cleanUp = async () => {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const [, key] = await server.waitFor(/Development API key \(shown once\): (bd_live_\w{32})/, 120000);
    return { base: `http://localhost:${port}`, key, output: server.output, stop: cleanUp };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}
