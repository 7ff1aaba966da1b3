import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { fingerprintOf, hashApiKey } from '../../src/common/api-key-format';
import { ADMIN_TOKEN } from '../support/test-app';
import { AppCluster, startAppCluster } from './support/app-cluster';

/**
 * Every API process caches API keys; a change made through one process (or by SQL, as an
 * administrator might) must be refused by every process within 1 s (Postgres NOTIFY from triggers).
 */
describe('API-key cache across two API processes', () => {
  let cluster: AppCluster;
  let db: Client;

  beforeAll(async () => {
    cluster = await startAppCluster(2, { RATE_LIMIT_PER_MINUTE: '100000' });
    db = new Client({ connectionString: cluster.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await cluster.close();
  });

  const status = async (node: number, key: string) => (await cluster.nodes[node].http.get('/v1/jobs').set('X-Api-Key', key)).status;

  /** Warms both processes' caches with the key, proves they answer from memory, and returns it. */
  async function cachedKey(): Promise<string> {
    const key = await cluster.createKey(0); // no ledger rows: the key can be deleted with its usage rows (deleteBySql)
    for (const node of [0, 1]) for (let i = 0; i < 3; i += 1) expect(await status(node, key)).toBe(200);
    return key;
  }

  /**
   * Deletes the key's row by SQL, with the usage rows and day counts its requests left: those are written a batch
   * per second (USAGE_FLUSH_INTERVAL_MS), so on a slow machine they are there by now.
   */
  async function deleteBySql(key: string): Promise<void> {
    await db.query(
      `WITH usage AS (DELETE FROM usage_events WHERE api_key_id IN (SELECT id FROM api_keys WHERE key_hash = $1)),
            days AS (DELETE FROM usage_daily WHERE api_key_id IN (SELECT id FROM api_keys WHERE key_hash = $1))
       DELETE FROM api_keys WHERE key_hash = $1`,
      [hashApiKey(key)],
    );
  }

  /** ms until `node` refuses `key` (polling every 20 ms), failing past 1 s. */
  async function msUntilRefused(node: number, key: string, since: number): Promise<number> {
    return msUntilAnswered(node, key, since, 401);
  }

  /** how long until process `node` answers the key with `wanted` (the other answer meanwhile), at most 1 s after `since` */
  async function msUntilAnswered(node: number, key: string, since: number, wanted: 200 | 401): Promise<number> {
    for (;;) {
      const answer = await status(node, key);
      if (answer === wanted) return Date.now() - since;
      expect(answer).toBe(wanted === 401 ? 200 : 401);
      if (Date.now() - since > 1000) throw new Error(`process ${node} still answers ${answer} ${Date.now() - since} ms after the change`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('answers a known key from memory: a repeated request does not query the key', async () => {
    const key = await cachedKey();
    // With the row gone behind the triggers' back, the cache is what still answers.
    await db.query('ALTER TABLE api_keys DISABLE TRIGGER api_key_deleted');
    try {
      await deleteBySql(key);
      expect(await status(1, key)).toBe(200);
    } finally {
      await db.query('ALTER TABLE api_keys ENABLE TRIGGER api_key_deleted');
    }
  });

  it('a key disabled through process 0 is refused by process 1 within 1 s, and served again by both within 1 s of its re-enabling', async () => {
    const key = await cachedKey();
    const fingerprint = fingerprintOf(hashApiKey(key));
    const since = Date.now();
    const disabled = await cluster.nodes[0].http.post('/v1/admin/keys/disable').set('X-Admin-Token', ADMIN_TOKEN).send({ key_fingerprint: fingerprint });
    expect(disabled.status).toBe(200);
    expect(await status(0, key)).toBe(401);
    const elapsed = await msUntilRefused(1, key, since);
    console.log(`disabled key refused by the other process after ${elapsed} ms`);
    const enabledAt = Date.now();
    await cluster.nodes[1].http.post('/v1/admin/keys/enable').set('X-Admin-Token', ADMIN_TOKEN).send({ key_fingerprint: fingerprint });
    expect(await status(1, key)).toBe(200);
    // process 0 cached the key disabled: it serves the key again once it hears the change
    await msUntilAnswered(0, key, enabledAt, 200);
  });

  it('a key deleted by SQL is refused by both processes within 1 s', async () => {
    const key = await cachedKey();
    const since = Date.now();
    await deleteBySql(key);
    await Promise.all([msUntilRefused(0, key, since), msUntilRefused(1, key, since)]);
  });

  it('a key whose secret is replaced (new hash) refuses the old secret on both processes within 1 s', async () => {
    const key = await cachedKey();
    const replacement = `bd_live_${randomBytes(24).toString('base64').replace(/[^A-Za-z0-9]/g, '').slice(0, 32).padEnd(32, 'x')}`;
    const since = Date.now();
    await db.query('UPDATE api_keys SET key_hash = $2, key_fingerprint = $3 WHERE key_hash = $1', [hashApiKey(key), hashApiKey(replacement), fingerprintOf(hashApiKey(replacement))]);
    await Promise.all([msUntilRefused(0, key, since), msUntilRefused(1, key, since)]);
    expect(await status(0, replacement)).toBe(200);
    expect(await status(1, replacement)).toBe(200);
  });

  it('a webhook secret rotated through one process is the one the other process shows', async () => {
    const key = await cachedKey();
    const rotated = await cluster.nodes[0].http.post('/v1/webhooks/secret').set('X-Api-Key', key);
    expect(rotated.status).toBe(200);
    const read = await cluster.nodes[1].http.get('/v1/webhooks/secret').set('X-Api-Key', key);
    expect(read.body.secret).toBe(rotated.body.secret);
  });
});
