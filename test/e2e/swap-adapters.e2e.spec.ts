// The example of docs/testing.md ("Swapping adapters"); test/unit/docs/testing-doc.spec.ts keeps the two equal.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Clock, FixedClock } from '../../src/common/clock';
import { InMemoryOutboundHttp } from '../../src/common/in-memory.outbound-http';
import { OutboundHttp } from '../../src/common/outbound-http';
import { eventually, MEDIA_DIR, startTestApp, swap, TestApp } from '../support/test-app';

describe('the API with the clock and outbound HTTP swapped for in-memory adapters', () => {
  const clock = FixedClock.at('2026-01-01T09:00:00Z');
  const internet = new InMemoryOutboundHttp().serve('https://videos.example.com/clip.mp4', readFileSync(path.join(MEDIA_DIR, 'portrait-pan.mp4')));
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({}, { adapters: [swap(Clock, clock), swap(OutboundHttp, internet)] });
  });
  afterAll(() => t.close());

  it('processes a URL job whose video only the in-memory internet serves, stamped by the fixed clock', async () => {
    const key = await t.createKey();
    const created = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: 'https://videos.example.com/clip.mp4', model: 'light' });
    expect(created.status).toBe(200);
    const done = await eventually(async () => {
      const job = (await t.http.get(`/v1/jobs/${created.body.id}`).set('X-Api-Key', key)).body;
      return job.status === 'completed' || job.status === 'failed' ? job : undefined;
    });
    expect(done).toMatchObject({ status: 'completed', created_at: '2026-01-01T09:00:00.000Z' });
  });

  it('refuses what the in-memory SSRF guard refuses, as the real one does', async () => {
    const key = await t.createKey();
    const refused = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: 'http://10.0.0.7/clip.mp4' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details[0].field).toBe('video_url');
  });
});
