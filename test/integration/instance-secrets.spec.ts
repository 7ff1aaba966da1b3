import { loadConfig } from '../../src/config/app-config';
import { migrate } from '../../src/composition/data-source';
import { loadInstanceSecrets } from '../../src/infrastructure/secrets/instance-secrets';
import { createTestDatabase, TestDatabase } from '../support/test-database';

const ADMIN_TOKEN = 'a'.repeat(32);

describe('the instance secrets across a move to URL_SIGNING_SECRET, on Postgres', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  const secretsOf = async (env: Record<string, string>, now = new Date()) => {
    const db = await migrate(database.url);
    try {
      return await loadInstanceSecrets(db, loadConfig({ DATABASE_URL: database.url, ADMIN_TOKEN, ...env }), now);
    } finally {
      await db.destroy();
    }
  };

  it('a secret set later signs; the one generated before is still accepted for the URLs it signed (expiring by the replacement and the longest URL life), URL_SIGNING_SECRET_PREVIOUS while listed', async () => {
    const generated = await secretsOf({});
    expect(generated.urlSigningSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(generated.previousUrlSigningSecrets).toEqual([]);
    expect((await secretsOf({})).urlSigningSecret).toBe(generated.urlSigningSecret);

    const replacedAt = new Date('2026-12-07T12:00:00Z');
    const env = { URL_SIGNING_SECRET: 'n'.repeat(32), URL_SIGNING_SECRET_PREVIOUS: `${'p'.repeat(32)},${'n'.repeat(32)}`, SIGNED_URL_TTL_SECONDS: '86400', WORKER_JOB_TIMEOUT_SECONDS: '3600' };
    const set = await secretsOf(env, replacedAt);
    expect(set.urlSigningSecret).toBe('n'.repeat(32));
    const expiringBy = replacedAt.getTime() / 1000 + 95_040; // a download URL's TTL and its tenth
    expect(set.previousUrlSigningSecrets).toEqual([{ secret: 'p'.repeat(32) }, { secret: generated.urlSigningSecret, expiringBy }]);
    // a later start keeps the replacement's time; once past it the generated secret is accepted no more
    expect((await secretsOf(env, new Date(replacedAt.getTime() + 3600_000))).previousUrlSigningSecrets[1]).toEqual({ secret: generated.urlSigningSecret, expiringBy });
    expect((await secretsOf(env, new Date((expiringBy + 1) * 1000))).previousUrlSigningSecrets).toEqual([{ secret: 'p'.repeat(32) }]);
  });
});
