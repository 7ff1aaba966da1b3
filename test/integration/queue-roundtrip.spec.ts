import * as path from 'node:path';
import { eventually, MEDIA_DIR, startTestApp, TestApp } from '../support/test-app';

describe.each([
  ['Redis', { REDIS_URL: 'redis://127.0.0.1:6379' }],
  ['Postgres', {}],
])('queue round trip through BullMQ on %s', (_backend, env: Record<string, string>) => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp(env);
    key = await t.createKey();
  });
  afterAll(() => t.close());

  it('takes started jobs from create to completed, each processed exactly once', async () => {
    const upload = await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', path.join(MEDIA_DIR, 'portrait-pan.mp4'));
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const res = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: upload.body.video_url, model: 'light' });
      expect(res.status).toBe(200);
      ids.push(res.body.id);
    }
    const finished = await eventually(async () => {
      const list = await t.http.get('/v1/jobs?status=completed').set('X-Api-Key', key);
      return list.body.total === ids.length ? list.body.items : undefined;
    }, 30000);
    expect(finished.map((job: { id: string }) => job.id).sort()).toEqual([...ids].sort());
    expect(t.fake.tasks.map((task) => task.jobId).sort()).toEqual([...ids].sort());
    const health = await t.http.get('/health');
    expect(health.body.checks.queue).toBe('ok');
  });
});
