// The all-in-memory example of docs/testing.md; test/unit/docs/testing-doc.spec.ts keeps the two equal.
import { createHmac } from 'node:crypto';
import { InMemoryOutboundHttp } from '../../../src/common/in-memory.outbound-http';
import { OutboundHttp } from '../../../src/common/outbound-http';
import { InMemoryVideoProbe } from '../../../src/modules/uploads/adapters/in-memory/in-memory.video-probe';
import { VideoProbe } from '../../../src/modules/uploads/ports/video-probe';
import { InMemoryApp, startInMemoryApp } from '../../support/in-memory-app';
import { eventually, swap } from '../../support/test-app';

describe('the whole API in memory: no Postgres, no Redis, the fake worker', () => {
  const clip = Buffer.from('the bytes of a 30-second clip');
  const internet = new InMemoryOutboundHttp().serve('https://videos.example.com/clip.mp4', clip);
  const probe = new InMemoryVideoProbe().knowVideo(clip, { durationSeconds: 30, width: 640, height: 360 });
  let t: InMemoryApp;

  beforeAll(async () => {
    t = await startInMemoryApp({}, { adapters: [swap(OutboundHttp, internet), swap(VideoProbe, probe)] });
  });
  afterAll(() => t.close());

  it('takes a URL job to completed: credits charged, output served, signed webhook sent, usage counted', async () => {
    const key = await t.createKey(100);
    const secret = (await t.http.get('/v1/webhooks/secret').set('X-Api-Key', key)).body.secret as string;
    const created = await t.http
      .post('/v1/jobs')
      .set('X-Api-Key', key)
      .send({ video_url: 'https://videos.example.com/clip.mp4', model: 'light', webhook_url: 'https://hooks.example.com/backdrop' });
    expect(created.status).toBe(200);

    const job = await eventually(async () => {
      const read = (await t.http.get(`/v1/jobs/${created.body.id}`).set('X-Api-Key', key)).body;
      return read.status === 'completed' ? read : undefined;
    }, 5000, 5);
    expect(job).toMatchObject({ progress: 100, duration_seconds: 4, billing_status: 'charged' });
    expect(job.credits_charged).toBeGreaterThan(0);
    expect(t.fake.tasks.map((task) => task.jobId)).toEqual([created.body.id]);

    const download = await fetch(job.output_url);
    expect(Buffer.from(await download.arrayBuffer()).equals(clip)).toBe(true);

    const hook = await eventually(async () => internet.posts.find((post) => JSON.parse(post.body).event === 'job.completed'));
    const signed = `${hook.headers['webhook-id']}.${hook.headers['webhook-timestamp']}.${hook.body}`;
    const expected = createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64')).update(signed).digest('base64');
    expect(hook.headers['webhook-signature']).toContain(expected);
    const delivered = async () => (await t.http.get(`/v1/jobs/${created.body.id}`).set('X-Api-Key', key)).body.webhook_events;
    expect(await eventually(async () => ((await delivered())['job.completed'] === 'sent' ? delivered() : undefined))).toEqual({ 'job.started': 'sent', 'job.completed': 'sent' });

    const usage = (await t.http.get('/v1/usage/summary').set('X-Api-Key', key)).body;
    expect(usage).toMatchObject({ total_jobs: 1, completed_jobs: 1, credits_used: job.credits_charged });
    expect(usage.requests).toBeGreaterThanOrEqual(3);
  });

  it('refuses what the real API refuses, in the same envelope', async () => {
    const key = await t.createKey();
    const refused = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: 'http://10.0.0.7/clip.mp4' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details[0].field).toBe('video_url');
    expect((await t.http.get('/v1/jobs')).status).toBe(401);
  });
});
