import * as path from 'node:path';
import Redis from 'ioredis';
import { eventually, MEDIA_DIR, startTestApp, TestApp } from '../support/test-app';

const REDIS_URL = 'redis://127.0.0.1:6379';

describe('a Redis that loses its data under pending jobs', () => {
  let t: TestApp;
  let redis: Redis;

  beforeAll(async () => {
    t = await startTestApp({ REDIS_URL, JOB_REQUEUE_LOST_INTERVAL_MS: '500' });
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    redis.disconnect();
    await t.close();
  });

  /** every key of this app's queues, as a Redis restarted without its data has none (other tests' queues are left) */
  const loseTheQueues = async () => {
    const keys = await redis.keys(`${t.config.env.QUEUE_NAMESPACE}:*`);
    expect(keys.length).toBeGreaterThan(0);
    await redis.del(...keys);
  };

  it('queues them again and runs them: they waited for good', async () => {
    const key = await t.createKey(1000);
    const videoUrl = (await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', path.join(MEDIA_DIR, 'portrait-pan.mp4'))).body.video_url;
    const statusOf = async (id: string) => (await t.http.get(`/v1/jobs/${id}`).set('X-Api-Key', key)).body.status;
    t.fake.hold();
    const running = (await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: videoUrl, model: 'light' })).body.id;
    await eventually(async () => ((await statusOf(running)) === 'processing' ? true : undefined));
    const waiting: string[] = [];
    for (let i = 0; i < 3; i += 1) waiting.push((await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: videoUrl, model: 'light' })).body.id);

    await loseTheQueues();
    t.fake.release();
    for (const id of [running, ...waiting]) expect(await eventually(async () => ((await statusOf(id)) === 'completed' ? 'completed' : undefined), 20000)).toBe('completed');
  });
});
