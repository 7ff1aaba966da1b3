import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { migrate } from '../../src/composition/data-source';
import { InMemoryRateLimitStore } from '../../src/modules/rate-limit/adapters/in-memory/in-memory.rate-limit-store';
import { PostgresRateLimitStore } from '../../src/modules/rate-limit/adapters/postgres/postgres.rate-limit-store';
import { RedisRateLimitStore } from '../../src/modules/rate-limit/adapters/redis/redis.rate-limit-store';
import { RateLimitStore } from '../../src/modules/rate-limit/ports/rate-limit-store';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { describeRateLimitStoreContract } from './rate-limit-store.contract';

describe('in-memory rate-limit store', () => {
  const store = new InMemoryRateLimitStore();
  describeRateLimitStoreContract(() => store);
});

describe('Redis rate-limit store', () => {
  let store: RateLimitStore;
  let prefix: string;
  beforeAll(() => {
    prefix = `contract_${randomUUID().slice(0, 8)}:ratelimit`;
    store = RedisRateLimitStore.connect('redis://127.0.0.1:6379', prefix);
  });
  afterAll(async () => {
    const redis = new Redis('redis://127.0.0.1:6379');
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
    await store.close();
  });
  describeRateLimitStoreContract(() => store);

  it('keys expire by themselves two windows after their last request', async () => {
    const redis = new Redis('redis://127.0.0.1:6379');
    await store.consume('expiring', 5, 3000, Date.now());
    const ttl = await redis.pttl(`${prefix}:expiring`);
    await redis.quit();
    expect(ttl).toBeGreaterThan(5000);
    expect(ttl).toBeLessThanOrEqual(6000);
  });
});

describe('Postgres rate-limit store', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let store: RateLimitStore;
  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = await migrate(database.url);
    store = new PostgresRateLimitStore(dataSource);
  });
  afterAll(async () => {
    await store.close();
    await dataSource.destroy();
    await database.drop();
  });
  describeRateLimitStoreContract(() => store);
});
