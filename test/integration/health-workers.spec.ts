import { NO_QUEUE_CONSUMER } from '../../src/modules/health/health.service';
import { Cluster, withProcessOutput } from '../support/cluster';
import { eventually } from '../support/test-app';
import { createTestDatabase, TestDatabase } from '../support/test-database';

async function health(url: string): Promise<{ status: number; body: { status: string; checks: Record<string, string> } }> {
  const res = await fetch(`${url}/health`);
  return { status: res.status, body: (await res.json()) as { status: string; checks: Record<string, string> } };
}

describe.each([
  ['Redis', { REDIS_URL: 'redis://127.0.0.1:6379' }],
  ['Postgres', {}],
])('/health of a deployment whose queue is on %s', (_backend, queueEnv: Record<string, string>) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it("API processes with no worker are degraded, saying why, though ready for traffic; another deployment's worker on the same database does not count; a worker of their own makes them healthy", async () => {
    const namespace = () => `health_${Math.random().toString(36).slice(2, 10)}`;
    const cluster = new Cluster({ DATABASE_URL: database.url, QUEUE_NAMESPACE: namespace(), ...queueEnv });
    const neighbour = new Cluster({ DATABASE_URL: database.url, QUEUE_NAMESPACE: namespace(), ...queueEnv });
    try {
      await neighbour.start('worker');
      const api = await cluster.start('api');
      const alone = await health(api.url);
      expect(alone).toEqual({ status: 503, body: { status: 'degraded', checks: { api: 'ok', worker_configured: NO_QUEUE_CONSUMER, storage_configured: 'ok', database: 'ok', queue: 'ok' } } });
      expect((await fetch(`${api.url}/health/ready`)).status).toBe(200);

      await cluster.start('worker');
      const served = await eventually(async () => {
        const answer = await health(api.url);
        return answer.status === 200 ? answer : undefined;
      }, 20000);
      expect(served.body).toEqual({ status: 'healthy', checks: { api: 'ok', worker_configured: 'ok', storage_configured: 'ok', database: 'ok', queue: 'ok' } });
    } catch (error) {
      throw withProcessOutput(error, [...cluster.processes, ...neighbour.processes]);
    } finally {
      await Promise.all([cluster.stopAll(), neighbour.stopAll()]);
    }
  }, 120000);
});

describe('a worker process', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it("serves its health and metrics and none of the API: no job, key or admin route, no docs (it served them all, without the API's rate limits)", async () => {
    const cluster = new Cluster({ DATABASE_URL: database.url, QUEUE_NAMESPACE: `worker_${Math.random().toString(36).slice(2, 10)}`, REDIS_URL: 'redis://127.0.0.1:6379' });
    try {
      const worker = await cluster.start('worker');
      const statusOf = async (path: string) => (await fetch(`${worker.url}${path}`, { headers: { 'X-Api-Key': 'bd_live_00000000000000000000000000000000', 'X-Admin-Token': 'a'.repeat(32) } })).status;
      expect(await statusOf('/health/live')).toBe(200);
      expect(await statusOf('/metrics')).toBe(200);
      for (const path of ['/v1/jobs', '/v1/jobs/job_00000000000000000000000000', '/v1/admin/keys', '/v1/webhooks/secret', '/api/download/job_00000000000000000000000000', '/v1/models', '/v1/usage/summary', '/openapi.json', '/docs']) {
        expect([path, await statusOf(path)]).toEqual([path, 404]);
      }
    } catch (error) {
      throw withProcessOutput(error, cluster.processes);
    } finally {
      await cluster.stopAll();
    }
  }, 60000);
});
