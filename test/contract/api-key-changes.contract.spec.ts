import type { DataSource } from 'typeorm';
import { migrate } from '../../src/composition/data-source';
import { InMemoryApiKeyRepository } from '../../src/modules/auth/adapters/in-memory/in-memory.api-key.repository';
import { PgNotifyApiKeyChanges } from '../../src/modules/auth/adapters/postgres/pg-notify.api-key-changes';
import { ApiKeyRecord } from '../../src/modules/auth/adapters/typeorm/api-key.record';
import { TypeOrmApiKeyRepository } from '../../src/modules/auth/adapters/typeorm/typeorm.api-key.repository';
import { issueApiKey } from '../../src/modules/auth/domain/api-key';
import { ApiKeyChanges } from '../../src/modules/auth/ports/api-key-changes';
import { ApiKeyRepository } from '../../src/modules/auth/ports/api-key.repository';
import { createTestDatabase, TestDatabase } from '../support/test-database';

interface Harness {
  keys: ApiKeyRepository;
  changes: ApiKeyChanges;
}

/** What every ApiKeyChanges must do with its repository: announce each change that affects authentication, and only those. */
function describeApiKeyChangesContract(harness: () => Harness): void {
  describe('ApiKeyChanges contract', () => {
    const heard: Array<string | null> = [];
    let unsubscribe: () => void;
    beforeEach(() => {
      heard.length = 0;
      unsubscribe = harness().changes.subscribe((keyHash) => heard.push(keyHash));
    });
    afterEach(() => unsubscribe());

    const newKey = () => {
      const issued = issueApiKey();
      return harness().keys.create({ clientId: 'c', note: null, keyHash: issued.keyHash, fingerprint: issued.fingerprint, webhookSecret: 'whsec_dGVzdA==' });
    };
    const announced = async (keyHash: string): Promise<number> => {
      const since = Date.now();
      while (!heard.includes(keyHash)) {
        if (Date.now() - since > 1000) throw new Error('the change was not announced within 1 s');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return Date.now() - since;
    };

    it('is live once started', () => {
      expect(harness().changes.isLive()).toBe(true);
    });

    it('announces a key disabled, re-enabled, and given a new webhook secret, within 1 s', async () => {
      const key = await newKey();
      await harness().keys.setEnabled(key.fingerprint, false);
      await announced(key.keyHash);
      heard.length = 0;
      await harness().keys.setEnabled(key.fingerprint, true);
      await announced(key.keyHash);
      heard.length = 0;
      await harness().keys.rotateWebhookSecret(key.id, 'whsec_bmV3', { now: new Date(), previousValidUntil: new Date(Date.now() + 60_000) });
      await announced(key.keyHash);
    });

    it('announces nothing for a new key or an unchanged one', async () => {
      const key = await newKey();
      await harness().keys.setEnabled(key.fingerprint, true); // already enabled
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(heard).not.toContain(key.keyHash);
    });
  });
}

describe('in-memory API-key change feed', () => {
  const keys = new InMemoryApiKeyRepository();
  describeApiKeyChangesContract(() => ({ keys, changes: keys.changes }));
});

describe('Postgres LISTEN/NOTIFY API-key change feed (triggers on api_keys)', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let harnessValue: Harness;
  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = await migrate(database.url);
    const changes = new PgNotifyApiKeyChanges(database.url);
    await changes.start();
    harnessValue = { keys: new TypeOrmApiKeyRepository(dataSource.getRepository(ApiKeyRecord)), changes };
  });
  afterAll(async () => {
    await harnessValue.changes.close();
    await dataSource.destroy();
    await database.drop();
  });
  describeApiKeyChangesContract(() => harnessValue);

  it('announces a key deleted by SQL, and says it is not live (forget everything) when its connection is cut, then listens again', async () => {
    const heard: Array<string | null> = [];
    const unsubscribe = harnessValue.changes.subscribe((keyHash) => heard.push(keyHash));
    const issued = issueApiKey();
    const key = await harnessValue.keys.create({ clientId: 'c', note: null, keyHash: issued.keyHash, fingerprint: issued.fingerprint, webhookSecret: 'whsec_eA==' });
    await dataSource.query('DELETE FROM api_keys WHERE id = $1', [key.id]);
    await waitFor(() => heard.includes(key.keyHash));
    await dataSource.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN backdrop_api_key_changes%' AND datname = current_database()`);
    // not live from the cut until it listens again (at least its first retry's 100 ms): keys are read from the database meanwhile
    await waitFor(() => !harnessValue.changes.isLive());
    expect(heard).toContain(null);
    await waitFor(() => harnessValue.changes.isLive(), 5000);
    unsubscribe();
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 1000): Promise<void> {
  const since = Date.now();
  while (!condition()) {
    if (Date.now() - since > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
