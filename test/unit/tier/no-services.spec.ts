import { connect, createServer } from 'node:net';
import { Client } from 'pg';
import Redis from 'ioredis';
import { takeServiceAttempts } from '../../support/unit-tier.setup';

/** The unit tier's guard (test/support/unit-tier.setup.ts) catches a test that reaches a service. */
describe('the unit tier runs with Postgres and Redis out of reach', () => {
  afterEach(() => takeServiceAttempts());

  it('a Postgres connection is refused and recorded', async () => {
    const client = new Client({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' });
    client.on('error', () => undefined);
    await expect(client.connect()).rejects.toThrow(/unit tier reaches no Postgres or Redis/);
    expect(takeServiceAttempts()).toEqual(['a connection to port 5432']);
  });

  it('a Redis connection is refused and recorded', async () => {
    const redis = new Redis({ host: '127.0.0.1', port: 6379, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    redis.on('error', () => undefined);
    await expect(redis.connect()).rejects.toThrow();
    redis.disconnect();
    expect(takeServiceAttempts()).toContain('a connection to port 6379');
  });

  it('other connections (a loopback server of the test itself) still work', async () => {
    const server = createServer((socket) => socket.end('hi'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const said = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      socket.on('data', (data) => resolve(String(data))).on('error', reject);
    });
    server.close();
    expect(said).toBe('hi');
    expect(takeServiceAttempts()).toEqual([]);
  });
});
