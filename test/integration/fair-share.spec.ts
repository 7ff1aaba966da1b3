import * as path from 'node:path';
import { eventually, MEDIA_DIR, startTestApp, TestApp } from '../support/test-app';

describe.each([
  ['BullMQ on Postgres', {}],
  ['BullMQ on Redis', { REDIS_URL: 'redis://127.0.0.1:6379' }],
])("the workers' fair share between keys (two workers, a share of one job per key; %s)", (_backend, queueEnv: Record<string, string>) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ WORKER_CONCURRENCY: '2', FAIR_SHARE_JOBS_PER_KEY: '1', ...queueEnv });
  });
  afterAll(async () => {
    t.fake.release();
    await t.close();
  });

  it("a key alone takes every worker; once another key's job waits, that job goes before the rest of the first key's", async () => {
    const [first, second] = [await t.createKey(1000), await t.createKey(1000)];
    const upload = async (key: string) => (await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', path.join(MEDIA_DIR, 'portrait-pan.mp4'))).body.video_url as string;
    const videoUrls = new Map([[first, await upload(first)], [second, await upload(second)]]);
    const start = async (key: string) => (await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: videoUrls.get(key), model: 'light' })).body.id as string;
    const statusOf = async (key: string, id: string) => (await t.http.get(`/v1/jobs/${id}`).set('X-Api-Key', key)).body.status as string;
    const until = (key: string, id: string, status: string) => eventually(async () => ((await statusOf(key, id)) === status ? status : undefined), 20000);

    t.fake.hold();
    const running = [await start(first), await start(first)];
    for (const id of running) expect(await until(first, id, 'processing')).toBe('processing');

    const backlog = [await start(first), await start(first)];
    const theirs = await start(second);
    // a worker comes free: the first key already has its share, so the second key's job goes next
    expect((await t.http.post(`/v1/jobs/${running[0]}/cancel`).set('X-Api-Key', first)).status).toBe(200);
    expect(await until(second, theirs, 'processing')).toBe('processing');
    for (const id of backlog) expect(await statusOf(first, id)).toBe('pending');

    t.fake.release();
    for (const id of backlog) expect(await until(first, id, 'completed')).toBe('completed');
    expect(await statusOf(second, theirs)).toBe('completed');
  }, 60000);
});
