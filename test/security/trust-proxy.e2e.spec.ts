import { randomBytes } from 'node:crypto';
import { eventually, startTestApp, TestApp } from '../support/test-app';

const LIMIT = 3;
const madeUp = () => `bd_live_${randomBytes(16).toString('hex')}`;

/**
 * Behind a proxy every request comes from the proxy's address: the limit on refused keys per client
 * address stopped every client at once, until TRUST_PROXY let the proxy say who the client is.
 */
describe('TRUST_PROXY: the client address the proxy forwards', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: 'loopback', RATE_LIMIT_PER_MINUTE: String(LIMIT), RATE_LIMIT_WINDOW_SECONDS: '60' });
  });
  afterAll(() => t.close());

  const get = (path: string, client: string) => t.http.get(path).set('X-Api-Key', madeUp()).set('X-Forwarded-For', client);

  it("counts refused keys per forwarded client: one client stopped, another through the same proxy not, on the router's routes and the job-status lane", async () => {
    for (let i = 0; i < LIMIT; i += 1) expect((await get('/v1/jobs', '203.0.113.1')).status).toBe(401);
    await eventually(async () => ((await get('/v1/jobs', '203.0.113.1')).status === 429 ? true : undefined), 3000);
    expect((await get('/v1/jobs/job_00000000000000000000000000', '203.0.113.1')).status).toBe(429);
    expect((await get('/v1/jobs', '203.0.113.2')).status).toBe(401);
    expect((await get('/v1/jobs/job_00000000000000000000000000', '203.0.113.2')).status).toBe(401);
  });
});
