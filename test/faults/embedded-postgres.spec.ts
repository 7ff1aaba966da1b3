/**
 * The embedded default's Postgres (the app's own launcher, in a child process) killed under the
 * process that started it, as a full disk's PANIC or the OOM killer would: it is started again.
 */
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { Client } from 'pg';
import * as path from 'node:path';
import { answers } from '../../src/infrastructure/database/embedded-postgres.launcher';
import { startEmbeddedDatabase } from '../support/embedded-database';
import { eventually } from '../support/test-app';

describe('the embedded Postgres', () => {
  it('is started again when it dies under its server (it stayed down for good, every request 503 while liveness said all was well), not when it was shut down (exit 0: Ctrl-C reaches it too), and stops with the server afterwards', async () => {
    const pg = await startEmbeddedDatabase();
    try {
      expect(await answers(pg.url)).toBe(true);
      const postmasterOf = () => Number(readFileSync(path.join(pg.dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
      const killed = postmasterOf();
      process.kill(killed, 'SIGKILL');
      await eventually(async () => ((await answers(pg.url)) && postmasterOf() !== killed ? true : undefined), 60_000, 250);
      // a shutdown asked for (Ctrl-C reaches Postgres too) is left alone: the server stops it itself
      process.kill(postmasterOf(), 'SIGINT');
      await eventually(async () => ((await answers(pg.url)) ? undefined : true), 30_000, 250);
      await new Promise((resolve) => setTimeout(resolve, 3000));
      expect(await answers(pg.url)).toBe(false);
    } finally {
      const stopping = Date.now();
      await pg.stop();
      expect(Date.now() - stopping).toBeLessThan(10_000); // its stop waited for good on the Postgres that had died
    }
  }, 120_000);

  it("signs in with a random password of its own, kept in DATA_DIR (mode 600); a cluster made with the fixed password every cluster had gets one at its next start (any local account could sign in and take the admin token's place), and a replacement cut short is finished", async () => {
    const fixedUrl = (url: string) => url.replace(/\/\/backdrop:[^@]*@/, '//backdrop:backdrop-embedded@');
    const passwordFile = (dataDir: string) => path.join(dataDir, 'postgres-password');
    let pg = await startEmbeddedDatabase();
    try {
      expect(pg.url).toContain(`backdrop:${readFileSync(passwordFile(pg.dataDir), 'utf8').trim()}@`);
      expect(statSync(passwordFile(pg.dataDir)).mode & 0o777).toBe(0o600);
      expect(await answers(fixedUrl(pg.url))).toBe(false);
      // as a cluster of the version before: the fixed password, no password file
      await query(pg.url, "ALTER ROLE backdrop PASSWORD 'backdrop-embedded'");
      rmSync(passwordFile(pg.dataDir));
      await pg.stop({ keepData: true });
      pg = await startEmbeddedDatabase({ dataDir: pg.dataDir, port: pg.port });
      expect(pg.url).not.toContain('backdrop-embedded');
      expect(await answers(pg.url)).toBe(true);
      expect(await answers(fixedUrl(pg.url))).toBe(false);
      expect(pg.url).toContain(`backdrop:${readFileSync(passwordFile(pg.dataDir), 'utf8').trim()}@`);

      // a replacement killed after the role took its password, before the file held it: the next start finds it beside
      const cutShort = 'c'.repeat(48);
      await query(pg.url, `ALTER ROLE backdrop PASSWORD '${cutShort}'`);
      rmSync(passwordFile(pg.dataDir));
      writeFileSync(`${passwordFile(pg.dataDir)}.next`, `${cutShort}\n`, { mode: 0o600 });
      await pg.stop({ keepData: true });
      pg = await startEmbeddedDatabase({ dataDir: pg.dataDir, port: pg.port });
      expect(pg.url).toContain(`backdrop:${cutShort}@`);
      expect(await answers(pg.url)).toBe(true);
      expect(readFileSync(passwordFile(pg.dataDir), 'utf8').trim()).toBe(cutShort);
    } finally {
      await pg.stop();
    }
  }, 240_000);
});

async function query(url: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
