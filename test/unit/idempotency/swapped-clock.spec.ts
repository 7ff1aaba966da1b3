import { Clock, FixedClock } from '../../../src/common/clock';
import { InMemoryApp, startInMemoryApp } from '../../support/in-memory-app';
import { swap } from '../../support/test-app';

describe('the in-memory app on a clock a test swapped in', () => {
  const clock = FixedClock.at('2026-01-01T00:00:00Z');
  let t: InMemoryApp;
  beforeAll(async () => {
    t = await startInMemoryApp({ IDEMPOTENCY_TTL_SECONDS: '60' }, { adapters: [swap(Clock, clock)] });
  });
  afterAll(() => t.close());

  it("expires an Idempotency-Key by that clock (its store kept the system's, so the key never expired in a test)", async () => {
    const key = await t.createKey();
    const draft = (order: string) => t.http.post('/v1/jobs').set('X-Api-Key', key).set('Idempotency-Key', 'k').send({ video_url: 'https://videos.example.com/a.mp4', auto_start: false, metadata: { order } });
    expect((await draft('1')).status).toBe(200);
    expect((await draft('2')).status).toBe(422);
    clock.advance(61_000);
    expect((await draft('2')).status).toBe(200);
  });
});
