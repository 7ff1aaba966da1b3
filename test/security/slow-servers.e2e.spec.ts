import { eventually, startTestApp, TestApp } from '../support/test-app';
import { LoopbackServer, startLoopbackServer } from './support/loopback-server';

/** the whole fetch of an input within this (INPUT_FETCH_TIMEOUT_SECONDS) */
const FETCH_SECONDS = 4;

/**
 * Servers that send a byte now and then, never silent long enough for an idle timeout: a job's
 * input fetch ends at INPUT_FETCH_TIMEOUT_SECONDS, and a canceled job stops its fetch at once,
 * rather than holding a worker's slot for as long as the server likes.
 */
describe('inputs served a byte at a time', () => {
  let t: TestApp;
  let key: string;
  let trickler: LoopbackServer;
  /** when each answer of the trickler was closed, by path */
  const closedAt = new Map<string, number>();

  beforeAll(async () => {
    trickler = await startLoopbackServer((req, res) => {
      res.writeHead(200, { 'content-type': 'video/mp4' });
      const timer = setInterval(() => res.write(Buffer.alloc(1)), 100);
      res.on('close', () => {
        clearInterval(timer);
        closedAt.set(req.url ?? '', Date.now());
      });
    });
    t = await startTestApp({ OUTBOUND_ALLOW_LIST: 'localhost', INPUT_FETCH_TIMEOUT_SECONDS: String(FETCH_SECONDS) });
    key = await t.createKey(100000);
  });
  afterAll(async () => {
    await t.close();
    await trickler.close();
  });

  const job = async (id: string) => (await t.http.get(`/v1/jobs/${id}`).set('X-Api-Key', key)).body;
  const create = async (path: string) => {
    const res = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: `http://localhost:${trickler.port}${path}` });
    expect(res.status).toBe(200);
    await eventually(async () => (trickler.hits.includes(`GET ${path}`) ? true : undefined));
    return { id: res.body.id as string, fetchStarted: Date.now() };
  };

  it('a video_url that trickles fails the job input_unreachable once INPUT_FETCH_TIMEOUT_SECONDS has passed', async () => {
    const { id, fetchStarted } = await create('/trickle.mp4');
    const failed = await eventually(async () => {
      const current = await job(id);
      return current.status === 'failed' ? current : undefined;
    }, 3 * FETCH_SECONDS * 1000);
    expect(failed).toMatchObject({ error_code: 'input_unreachable' });
    expect(failed.error).toMatch(new RegExp(`took longer than ${FETCH_SECONDS * 1000} ms`));
    expect(closedAt.get('/trickle.mp4')! - fetchStarted).toBeGreaterThanOrEqual(FETCH_SECONDS * 1000 - 500);
  }, 30_000);

  it('canceling a job whose video is being fetched closes the fetch, well before its deadline', async () => {
    const { id, fetchStarted } = await create('/canceled.mp4');
    const canceled = await t.http.post(`/v1/jobs/${id}/cancel`).set('X-Api-Key', key);
    expect(canceled.status).toBe(200);
    await eventually(async () => (closedAt.has('/canceled.mp4') ? true : undefined), 3 * FETCH_SECONDS * 1000);
    // the job's watch reads its status once a second
    expect(closedAt.get('/canceled.mp4')! - fetchStarted).toBeLessThan(FETCH_SECONDS * 1000 - 1000);
    expect(await job(id)).toMatchObject({ status: 'failed', error_code: 'canceled' });
  }, 30_000);
});
