/**
 * GET /v1/jobs/{id} is served ahead of Nest's router (job-status.route.ts): it must answer exactly as
 * the rest of /v1 does through Nest: the same headers (request id, security headers, rate-limit
 * headers), the same body as the job the API returned at creation, the same error envelopes, and the
 * same rate limit (counted once per request, 429 with Retry-After).
 */
import { InMemoryOutboundHttp } from '../../../src/common/in-memory.outbound-http';
import { OutboundHttp } from '../../../src/common/outbound-http';
import { InMemoryApp, startInMemoryApp } from '../../support/in-memory-app';
import { swap } from '../../support/test-app';

const VARYING = new Set(['date', 'content-length', 'connection', 'keep-alive']);
const namesOf = (headers: Record<string, unknown>) => Object.keys(headers).filter((name) => !VARYING.has(name)).sort();

describe('GET /v1/jobs/{id} ahead of Nest\'s router', () => {
  let t: InMemoryApp;
  beforeAll(async () => {
    const internet = new InMemoryOutboundHttp().serve('https://videos.example.com/clip.mp4', 'the bytes of a clip');
    t = await startInMemoryApp({ RATE_LIMIT_PER_MINUTE: '8' }, { adapters: [swap(OutboundHttp, internet)] });
  });
  afterAll(() => t.close());

  it('answers with the headers of a Nest route and the job as the API showed it; errors in the envelope; one count per request', async () => {
    const key = await t.createKey(100);
    const created = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: 'https://videos.example.com/clip.mp4', auto_start: false });
    const read = await t.http.get(`/v1/jobs/${created.body.id}`).set('X-Api-Key', key);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ success: true, ...created.body.job });
    expect(read.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(read.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(read.body)));
    const list = await t.http.get('/v1/jobs').set('X-Api-Key', key); // served by Nest
    expect(namesOf(read.headers)).toEqual(namesOf(list.headers));
    // the security headers, written once from helmet's answer, are helmet's to the letter
    const perRequest = (name: string) => name === 'x-request-id' || name.startsWith('x-ratelimit-');
    const fixed = (headers: Record<string, unknown>) => Object.fromEntries(namesOf(headers).filter((name) => !perRequest(name)).map((name) => [name, headers[name]]));
    expect(fixed(read.headers)).toEqual(fixed(list.headers));
    expect(read.headers['x-powered-by']).toBeUndefined();
    expect(Number(read.headers['x-ratelimit-remaining'])).toBe(Number(list.headers['x-ratelimit-remaining']) + 1);

    // a query string is served by the lane, an encoded id by Nest's router: the same answer either way
    expect((await t.http.get(`/v1/jobs/${created.body.id}?fields=all`).set('X-Api-Key', key)).body).toEqual(read.body);
    const encoded = await t.http.get(`/v1/jobs/${created.body.id.replace('_', '%5F')}`).set('X-Api-Key', key);
    expect(encoded.body).toEqual(read.body);
    expect(namesOf(encoded.headers)).toEqual(namesOf(read.headers));

    const missing = await t.http.get('/v1/jobs/job_00000000000000000000000000').set('X-Api-Key', key);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ success: false, error: { code: 'not_found', message: expect.any(String), request_id: missing.headers['x-request-id'] } });
    expect((await t.http.get(`/v1/jobs/${created.body.id}`)).body.error.code).toBe('missing_api_key');
    expect((await t.http.get(`/v1/jobs/${created.body.id}`).set('X-Api-Key', `${key}x`)).status).toBe(401);

    // the key's requests so far: the POST, four reads (one 404), the list (the keyless and wrong-key reads count elsewhere)
    for (const count of [7, 8]) expect((await t.http.get(`/v1/jobs/${created.body.id}`).set('X-Api-Key', key)).headers['x-ratelimit-remaining']).toBe(String(8 - count));
    const limited = await t.http.get(`/v1/jobs/${created.body.id}`).set('X-Api-Key', key);
    expect(limited.status).toBe(429);
    expect(limited.headers['x-request-id']).toBe(limited.body.error.request_id);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });
});
