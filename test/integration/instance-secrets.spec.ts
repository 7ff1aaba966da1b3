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

  const secretsOf = async (env: Record<string, string>) => {
    const db = await migrate(database.url);
    try {
      return await loadInstanceSecrets(db, loadConfig({ DATABASE_URL: database.url, ADMIN_TOKEN, ...env }));
    } finally {
      await db.destroy();
    }
  };

  it('a secret set later signs, and the one generated and kept in the database before is still accepted, as are URL_SIGNING_SECRET_PREVIOUS', async () => {
    const generated = await secretsOf({});
    expect(generated.urlSigningSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(generated.previousUrlSigningSecrets).toEqual([]);
    expect((await secretsOf({})).urlSigningSecret).toBe(generated.urlSigningSecret);

    const set = await secretsOf({ URL_SIGNING_SECRET: 'n'.repeat(32), URL_SIGNING_SECRET_PREVIOUS: `${'p'.repeat(32)},${'n'.repeat(32)}` });
    expect(set.urlSigningSecret).toBe('n'.repeat(32));
    expect(set.previousUrlSigningSecrets).toEqual(['p'.repeat(32), generated.urlSigningSecret]);
  });
});
