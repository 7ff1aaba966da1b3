import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { Response } from 'supertest';
import { ADMIN_TOKEN, eventually } from '../support/test-app';
import { AppCluster, startAppCluster } from './support/app-cluster';

const LIMIT = 6;
const STARTS = 2;
const WINDOW_SECONDS = 4;
const PUBLIC_VIDEO = 'http://93.184.216.34/video.mp4'; // a public literal: accepted at create, never fetched here (ROLE=api)

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function expectLimitHeaders(res: Response, remaining: number, prefix = 'x-ratelimit'): void {
  expect(res.headers[`${prefix}-limit`]).toBe(String(prefix === 'x-ratelimit' ? LIMIT : STARTS));
  expect(res.headers[`${prefix}-remaining`]).toBe(String(remaining));
  const reset = Number(res.headers[`${prefix}-reset`]);
  const now = Date.now() / 1000;
  expect(reset).toBeGreaterThanOrEqual(Math.floor(now));
  expect(reset).toBeLessThanOrEqual(Math.ceil(now) + WINDOW_SECONDS + 1);
}

function expect429(res: Response, what: RegExp, limit = LIMIT, windowSeconds = WINDOW_SECONDS): void {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ success: false, error: { code: 'rate_limited', message: expect.stringMatching(what), request_id: res.headers['x-request-id'] } });
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  // Sliding window: the longest wait is a burst at the very start of a window. It weighs fully to the
  // window's end, then fades, and one slot frees once window/limit of the next window has passed.
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds + Math.ceil(windowSeconds / limit));
}

describe.each([
  ['Postgres', {}],
  ['Redis', { REDIS_URL: 'redis://127.0.0.1:6379' }],
])('per-key rate limits, %s store, two API processes', (_store, storeEnv) => {
  let cluster: AppCluster;

  beforeAll(async () => {
    cluster = await startAppCluster(2, {
      RATE_LIMIT_PER_MINUTE: String(LIMIT),
      RATE_LIMIT_STARTS_PER_MINUTE: String(STARTS),
      RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
      ...storeEnv,
    });
  });
  afterAll(() => cluster.close());

  const [a, b] = [0, 1].map((i) => ({ get: (path: string, key?: string) => (key ? cluster.nodes[i].http.get(path).set('X-Api-Key', key) : cluster.nodes[i].http.get(path)) }));

  it(`a burst: ${LIMIT} requests pass with counting-down headers, request ${LIMIT + 1} is 429 with Retry-After`, async () => {
    const key = await cluster.createKey();
    for (let i = 1; i <= LIMIT; i += 1) {
      const res = await a.get('/v1/jobs', key);
      expect(res.status).toBe(200);
      expectLimitHeaders(res, LIMIT - i);
    }
    const over = await a.get('/v1/jobs', key);
    expect429(over, /6 requests per 4 s/);
    expectLimitHeaders(over, 0);
    // the refusals are requests in the HTTP metrics too
    expect((await cluster.nodes[0].http.get('/metrics')).text).toMatch(/backdrop_http_request_duration_seconds_count\{method="GET",route="[^"]*",status="429"\} [1-9]/);
  });

  it('two API processes share one count (the shared store), alternating requests', async () => {
    const key = await cluster.createKey();
    for (let i = 1; i <= LIMIT; i += 1) {
      const res = await (i % 2 ? a : b).get('/v1/jobs', key);
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-remaining']).toBe(String(LIMIT - i));
    }
    expect429(await b.get('/v1/jobs', key), /requests/);
    expect429(await a.get('/v1/jobs', key), /requests/);
  });

  it('counts per API key, not per client address: another key from the same address is untouched', async () => {
    const [busy, quiet] = [await cluster.createKey(), await cluster.createKey()];
    for (let i = 0; i <= LIMIT; i += 1) await a.get('/v1/jobs', busy);
    expect((await a.get('/v1/jobs', busy)).status).toBe(429);
    const other = await a.get('/v1/jobs', quiet);
    expect(other.status).toBe(200);
    expectLimitHeaders(other, LIMIT - 1);
  });

  it('the window slides: refused until Retry-After, served again after it, the burst forgotten two windows on', async () => {
    const key = await cluster.createKey();
    // the burst at a window's start (windows begin at multiples of their length), so that Retry-After is seconds away, not one
    const windowMs = WINDOW_SECONDS * 1000;
    await sleep(windowMs - (Date.now() % windowMs) + 50);
    for (let i = 0; i < LIMIT; i += 1) await b.get('/v1/jobs', key);
    const burstAt = Date.now();
    const over = await b.get('/v1/jobs', key);
    expect(over.status).toBe(429);
    const retryAfter = Number(over.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(2);
    await sleep(burstAt + retryAfter * 1000 - 1100 - Date.now());
    expect((await a.get('/v1/jobs', key)).status).toBe(429);
    await sleep(burstAt + retryAfter * 1000 + 300 - Date.now());
    const again = await a.get('/v1/jobs', key);
    expect(again.status).toBe(200);
    expect(Number(again.headers['x-ratelimit-remaining'])).toBeLessThan(LIMIT - 1);
    await sleep(burstAt + 2 * WINDOW_SECONDS * 1000 + 300 - Date.now());
    const later = await a.get('/v1/jobs', key);
    expect(later.status).toBe(200);
    // only the one request served after Retry-After may still weigh (its window is now the previous one)
    expect(Number(later.headers['x-ratelimit-remaining'])).toBeGreaterThanOrEqual(LIMIT - 2);
  });

  it('every /v1 response carries the headers, errors included (401, 404, 400)', async () => {
    const key = await cluster.createKey();
    const notFound = await a.get('/v1/jobs/job_00000000000000000000000000', key);
    expect(notFound.status).toBe(404);
    expectLimitHeaders(notFound, LIMIT - 1);
    const invalid = await a.get('/v1/jobs?limit=0', key);
    expect(invalid.status).toBe(400);
    expectLimitHeaders(invalid, LIMIT - 2);
    const missing = await a.get('/v1/jobs');
    expect(missing.status).toBe(401);
    expect(missing.headers['x-ratelimit-limit']).toBe(String(LIMIT));
  });

  it('a path in another case is no way around the limit: /V1/jobs is a 404 and /v1/jobs still counts', async () => {
    const key = await cluster.createKey();
    expectLimitHeaders(await a.get('/v1/jobs', key), LIMIT - 1);
    for (const path of ['/V1/jobs', '/V1/jobs/job_00000000000000000000000000', '/V1/webhooks/secret']) {
      const res = await a.get(path, key);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    const unknownUnderV1 = await a.get('/v1/JOBS', key); // no route, but a /v1 response of a key in use: counted
    expect(unknownUnderV1.status).toBe(404);
    expectLimitHeaders(unknownUnderV1, LIMIT - 2);
    expectLimitHeaders(await a.get('/v1/jobs', key), LIMIT - 3);
    // a made-up key on a route that never authenticates it makes no counter (each would be a store write)
    const madeUp = await a.get('/v1/nope', `bd_live_${randomBytes(16).toString('hex')}`);
    expect(madeUp.status).toBe(404);
    expect(madeUp.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('a key in use: requests the body parsers refuse are counted and carry the headers too: malformed JSON (400), a form (415), too large (413)', async () => {
    const key = await cluster.createKey();
    expectLimitHeaders(await a.get('/v1/jobs', key), LIMIT - 1);
    const post = () => cluster.nodes[0].http.post('/v1/jobs').set('X-Api-Key', key);
    const malformed = await post().set('Content-Type', 'application/json').send('{"video_url": ');
    expect([malformed.status, malformed.body.error?.code]).toEqual([400, 'invalid_request']);
    expectLimitHeaders(malformed, LIMIT - 2);
    const form = await post().type('form').send('video_url=https://example.com/a.mp4');
    expect(form.status).toBe(415);
    expectLimitHeaders(form, LIMIT - 3);
    const large = await post().send({ video_url: `https://example.com/${'a'.repeat(2_000_000)}.mp4` });
    expect(large.status).toBe(413);
    expectLimitHeaders(large, LIMIT - 4);
    expectLimitHeaders(await a.get('/v1/jobs', key), LIMIT - 5);
  });

  it("a key the process has not seen yet (or for 30 s): its first request, refused by the body parser, is counted and carries the headers (it went uncounted and without them)", async () => {
    const key = await cluster.createKey();
    const malformed = await cluster.nodes[1].http.post('/v1/jobs').set('X-Api-Key', key).set('Content-Type', 'application/json').send('{"video_url": ');
    expect(malformed.status).toBe(400);
    expectLimitHeaders(malformed, LIMIT - 1);
    expectLimitHeaders(await b.get('/v1/jobs', key), LIMIT - 2);
  });

  it(`made-up keys from one address are stopped before the database: ${LIMIT} are 401, then 429; a key in use there goes on`, async () => {
    const key = await cluster.createKey();
    expect((await a.get('/v1/jobs', key)).status).toBe(200); // in use: answered from memory from now on
    const madeUp = () => `bd_live_${randomBytes(16).toString('hex')}`;
    for (let i = 0; i < LIMIT; i += 1) expect((await (i % 2 ? a : b).get('/v1/jobs', madeUp())).status).toBe(401);
    // the count is shared; the refusal that follows is remembered by the process that sees it
    await eventually(async () => ((await a.get('/v1/jobs', madeUp())).status === 429 ? true : undefined), 3000);
    const stopped = await a.get('/v1/jobs/job_00000000000000000000000000', madeUp()); // the job-status lane too
    expect(stopped.status).toBe(429);
    expect(stopped.body.error.message).toMatch(/unknown or disabled API keys .* from this address/);
    const retryAfter = Number(stopped.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect((await a.get('/v1/jobs', key)).status).toBe(200);
    await sleep(retryAfter * 1000); // the next tests' new keys need a lookup from this address
  }, 20000);

  it('admin routes are not keyed by API key and not limited; public routes carry no headers', async () => {
    for (let i = 0; i < LIMIT + 3; i += 1) {
      const res = await cluster.nodes[0].http.get('/v1/admin/keys').set('X-Admin-Token', ADMIN_TOKEN);
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    }
    expect((await a.get('/api/pricing')).headers['x-ratelimit-limit']).toBeUndefined();
    expect((await a.get('/health/live')).headers['x-ratelimit-limit']).toBeUndefined();
  });

  it("the legacy keyed routes count in the key's requests, as their /v1 twins do: /api/download and /api/upload (trailing slash too); /api/pricing does not", async () => {
    const key = await cluster.createKey();
    expectLimitHeaders(await a.get('/v1/jobs', key), LIMIT - 1);
    const download = await a.get('/api/download/job_00000000000000000000000000', key);
    expect(download.status).toBe(404);
    expectLimitHeaders(download, LIMIT - 2);
    const upload = await cluster.nodes[1].http.post('/api/upload/').set('X-Api-Key', key);
    expect(upload.status).toBe(400);
    expectLimitHeaders(upload, LIMIT - 3);
    expect((await a.get('/api/pricing', key)).headers['x-ratelimit-limit']).toBeUndefined();
    expectLimitHeaders(await a.get('/v1/jobs', key), LIMIT - 4);
  });

  it(`job starts: ${STARTS} pass across create-with-auto_start, start and /api/process, start ${STARTS + 1} is 429; drafts do not count`, async () => {
    const key = await cluster.createKey();
    const post = (node: number, path: string, body: object) => cluster.nodes[node].http.post(path).set('X-Api-Key', key).send(body);

    const draft = await post(0, '/v1/jobs', { video_url: PUBLIC_VIDEO, auto_start: false });
    expect(draft.status).toBe(200);
    expect(draft.headers['x-ratelimit-starts-limit']).toBeUndefined();
    expectLimitHeaders(draft, LIMIT - 1);

    const started = await post(1, `/v1/jobs/${draft.body.id}/start`, {});
    expect(started.status).toBe(200);
    expectLimitHeaders(started, STARTS - 1, 'x-ratelimit-starts');

    const created = await post(0, '/v1/jobs', { video_url: PUBLIC_VIDEO });
    expect(created.status).toBe(200);
    expectLimitHeaders(created, 0, 'x-ratelimit-starts');

    const legacy = await post(1, '/api/process', { video_url: PUBLIC_VIDEO });
    expect429(legacy, /2 job starts per 4 s/, STARTS);
    expectLimitHeaders(legacy, 0, 'x-ratelimit-starts');

    const refused = await post(0, '/v1/jobs', { video_url: PUBLIC_VIDEO, auto_start: true });
    expect429(refused, /job starts/, STARTS);
    const lastDraft = await post(0, '/v1/jobs', { video_url: PUBLIC_VIDEO, auto_start: false });
    expect(lastDraft.status).toBe(200);
    expectLimitHeaders(lastDraft, 0); // the sixth request: /api/process counted as one
    const db = new Client({ connectionString: cluster.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query(`SELECT count(*)::int AS jobs FROM jobs WHERE api_key_id = (SELECT api_key_id FROM jobs WHERE id = $1)`, [lastDraft.body.id]);
      expect(rows[0].jobs).toBe(3); // the two refused starts created nothing
    } finally {
      await db.end();
    }
  });

  it(`a start the route refuses (a 400) gives its slot back: ${STARTS + 1} refused, then ${STARTS} still pass`, async () => {
    const key = await cluster.createKey();
    const post = (path: string, body: object) => cluster.nodes[0].http.post(path).set('X-Api-Key', key).send(body);
    const draft = await post('/v1/jobs', { video_url: PUBLIC_VIDEO, auto_start: false });
    for (let i = 0; i < STARTS + 1; i += 1) {
      const refused = await post(`/v1/jobs/${draft.body.id}/start`, { preview_duration: 999 });
      expect(refused.status).toBe(400);
      await sleep(50); // the slot is given back once the answer is out
    }
    // six requests in all, the request limit: both starts are let through by the starts limit
    expect((await post(`/v1/jobs/${draft.body.id}/start`, {})).status).toBe(200);
    expect((await post('/v1/jobs', { video_url: PUBLIC_VIDEO })).status).toBe(200);
  });

  it(`a create whose job is stored failed for credit gives its slot back (it starts nothing): ${STARTS + 1} on /v1/jobs and /api/process, each answered 200 with the starts left untouched`, async () => {
    const key = await cluster.createKey(0);
    for (let i = 0; i < STARTS + 1; i += 1) {
      const refused = await cluster.nodes[0].http.post(i % 2 ? '/api/process' : '/v1/jobs').set('X-Api-Key', key).send({ video_url: PUBLIC_VIDEO });
      expect([refused.status, refused.body.job?.error_code]).toEqual([200, 'insufficient_credits']);
      expectLimitHeaders(refused, STARTS - 1, 'x-ratelimit-starts');
      await sleep(50); // the slot is given back once the answer is out
    }
  });

  it(`a start replayed under its Idempotency-Key gives its slot back (it starts nothing): ${STARTS + 1} replays, then another start passes`, async () => {
    const key = await cluster.createKey();
    const create = () => cluster.nodes[0].http.post('/v1/jobs').set('X-Api-Key', key).set('Idempotency-Key', 'one-start').send({ video_url: PUBLIC_VIDEO });
    const first = await create();
    expect(first.status).toBe(200);
    for (let i = 0; i < STARTS + 1; i += 1) {
      await sleep(50); // the slot is given back once the answer is out
      const replayed = await create();
      expect(replayed.status).toBe(200);
      expect(replayed.headers['idempotent-replayed']).toBe('true');
      expect(replayed.body.id).toBe(first.body.id);
    }
    await sleep(50);
    expect((await cluster.nodes[0].http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: PUBLIC_VIDEO })).status).toBe(200);
  });
});

describe('job starts over the limit under an Idempotency-Key (two API processes, a high request limit)', () => {
  let starts: AppCluster;

  beforeAll(async () => {
    starts = await startAppCluster(2, { RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_STARTS_PER_MINUTE: String(STARTS), RATE_LIMIT_WINDOW_SECONDS: '60' });
  });
  afterAll(() => starts.close());

  it('once the starts are spent, a replay of a start is still answered (200, replayed); a new start under a new Idempotency-Key is 429', async () => {
    const key = await starts.createKey();
    const create = (idempotencyKey: string) => starts.nodes[0].http.post('/v1/jobs').set('X-Api-Key', key).set('Idempotency-Key', idempotencyKey).send({ video_url: PUBLIC_VIDEO });
    const first = await create('start-0');
    expect(first.status).toBe(200);
    for (let i = 1; i < STARTS; i += 1) expect((await create(`start-${i}`)).status).toBe(200);
    const refused = await create('start-new');
    expect429(refused, /job starts/, STARTS, 60);
    expect(refused.headers['x-ratelimit-starts-remaining']).toBe('0');
    const replayed = await create('start-0');
    expect([replayed.status, replayed.headers['idempotent-replayed'], replayed.body.id]).toEqual([200, 'true', first.body.id]);
    expect(replayed.headers['retry-after']).toBeUndefined();
    // a refused start claims nothing (no write): its retries, even at once, are refused for the limit, none 409 as if one ran
    const retries = await Promise.all(Array.from({ length: 12 }, () => create('start-new')));
    expect(retries.map((res) => res.status)).toEqual(retries.map(() => 429));
    expect((await starts.nodes[0].http.get('/v1/jobs?limit=100').set('X-Api-Key', key)).body.total).toBe(STARTS);
  });
});
