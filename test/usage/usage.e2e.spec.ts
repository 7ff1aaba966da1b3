import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { migrate } from '../../src/composition/data-source';
import { UsageRecorder } from '../../src/modules/usage/application/usage-recorder';
import { eventually, MEDIA_DIR, startTestApp, TestApp } from '../support/test-app';

const utcDay = (offsetDays: number) => new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate()) + offsetDays * 86_400_000);

describe('usage', () => {
  let t: TestApp;
  let db: DataSource;

  beforeAll(async () => {
    t = await startTestApp();
    db = await migrate(t.config.databaseUrl!);
  });
  afterAll(async () => {
    await db.destroy();
    await t.close();
  });

  it('records every /v1 call of a key, newest first, with route, status, job and credits', async () => {
    const key = await t.createKey(100);
    const upload = await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', path.join(MEDIA_DIR, 'portrait-pan.mp4'));
    const created = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: upload.body.video_url, model: 'light' });
    await t.http.get(`/v1/jobs/${created.body.id}`).set('X-Api-Key', key);
    await t.http.get('/v1/jobs/job_00000000000000000000000000').set('X-Api-Key', key);
    await t.http.get('/v1/jobs?limit=0').set('X-Api-Key', key);

    const events = await t.http.get('/v1/usage/events?limit=100').set('X-Api-Key', key);
    expect(events.status).toBe(200);
    expect(events.body.items.map((e: { method: string; path: string; status_code: number }) => [e.method, e.path, e.status_code])).toEqual([
      ['GET', '/v1/jobs', 400],
      ['GET', '/v1/jobs/job_00000000000000000000000000', 404],
      ['GET', `/v1/jobs/${created.body.id}`, 200],
      ['POST', '/v1/jobs', 200],
      ['POST', '/v1/uploads', 200],
    ]);
    const create = events.body.items[3];
    expect(create).toMatchObject({ job_id: created.body.id, credits: 3 });
    expect(create.duration_ms).toBeGreaterThan(0);
    expect(new Date(create.created_at).toISOString()).toBe(create.created_at);
    expect(events.body.items[2].job_id).toBe(created.body.id);
    expect((await t.http.get('/v1/usage/events?limit=2').set('X-Api-Key', key)).body.items).toHaveLength(2);
  });

  it("records the credits a call reserved: a start's once, none for its replay or a cancel", async () => {
    const key = await t.createKey(100);
    const upload = await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', path.join(MEDIA_DIR, 'portrait-pan.mp4'));
    const body = { video_url: upload.body.video_url, model: 'light', preview_duration: 1 };
    const created = await t.http.post('/v1/jobs').set('X-Api-Key', key).set('Idempotency-Key', 'usage-credits').send(body);
    const replayed = await t.http.post('/v1/jobs').set('X-Api-Key', key).set('Idempotency-Key', 'usage-credits').send(body);
    expect(replayed.body.id).toBe(created.body.id);
    await t.http.post(`/v1/jobs/${created.body.id}/cancel`).set('X-Api-Key', key);
    const events = (await t.http.get('/v1/usage/events?limit=10').set('X-Api-Key', key)).body.items as Array<{ method: string; path: string; credits: number }>;
    expect(events.map((event) => [event.method, event.path, event.credits])).toEqual([
      ['POST', `/v1/jobs/${created.body.id}/cancel`, 0],
      ['POST', '/v1/jobs', 0],
      ['POST', '/v1/jobs', 1],
      ['POST', '/v1/uploads', 0],
    ]);
  });

  it("records the original service's /api calls too (its clients upload and start paid jobs there)", async () => {
    const key = await t.createKey(100);
    const upload = await t.http.post('/api/upload').set('X-Api-Key', key).attach('file', path.join(MEDIA_DIR, 'portrait-pan.mp4'));
    expect(upload.status).toBe(200);
    const processed = await t.http.post('/api/process').set('X-Api-Key', key).send({ video_url: upload.body.video_url, model: 'light', preview_duration: 1 });
    expect(processed.status).toBe(200);
    const download = await t.http.get(`/api/download/${processed.body.id}`).set('X-Api-Key', key); // it authenticates apart from the guard: it went unrecorded
    expect([200, 409]).toContain(download.status);
    const events = (await t.http.get('/v1/usage/events?limit=10').set('X-Api-Key', key)).body.items as Array<{ method: string; path: string; credits: number }>;
    expect(events.map((event) => [event.method, event.path, event.credits])).toEqual([
      ['GET', `/api/download/${processed.body.id}`, 0],
      ['POST', '/api/process', 1],
      ['POST', '/api/upload', 0],
    ]);
  });

  it('summarises jobs, credits, seconds and requests per UTC day, zeros included, agreeing with the ledger', async () => {
    const key = await t.createKey(100);
    const upload = await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', path.join(MEDIA_DIR, 'portrait-pan.mp4'));
    const done = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: upload.body.video_url });
    await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: upload.body.video_url, auto_start: false });
    await eventually(async () => ((await t.http.get(`/v1/jobs/${done.body.id}`).set('X-Api-Key', key)).body.status === 'completed' ? true : undefined));
    t.fake.failWith('worker_failed');
    try {
      const failing = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: upload.body.video_url });
      await eventually(async () => ((await t.http.get(`/v1/jobs/${failing.body.id}`).set('X-Api-Key', key)).body.status === 'failed' ? true : undefined));
    } finally {
      t.fake.succeedWith(4);
    }
    await t.app.get(UsageRecorder).flush();
    const [{ recorded }] = await db.query(`SELECT COUNT(*)::int AS recorded FROM usage_events u JOIN api_keys k ON k.id = u.api_key_id WHERE k.key_hash = encode(sha256($1::bytea), 'hex')`, [key]);
    const summary = await t.http.get('/v1/usage/summary?days=3').set('X-Api-Key', key);
    expect(summary.status).toBe(200);
    expect(summary.body).toMatchObject({ success: true, days: 3, total_jobs: 3, completed_jobs: 1, failed_jobs: 1, credits_used: 4, video_seconds: 4 });
    expect(summary.body.daily.map((d: { date: string }) => d.date)).toEqual([-2, -1, 0].map((offset) => utcDay(offset).toISOString().slice(0, 10)));
    expect(summary.body.daily[0]).toEqual({ date: utcDay(-2).toISOString().slice(0, 10), total_jobs: 0, completed_jobs: 0, failed_jobs: 0, credits_used: 0, video_seconds: 0, requests: 0 });
    expect(summary.body.daily[2]).toMatchObject({ total_jobs: 3, credits_used: 4, requests: summary.body.requests });
    const [{ charged }] = await db.query(`SELECT -SUM(l.amount) AS charged FROM credit_ledger l JOIN api_keys k ON k.id = l.api_key_id WHERE l.kind = 'charge' AND k.key_hash = encode(sha256($1::bytea), 'hex')`, [key]);
    expect(summary.body.credits_used).toBe(Number(charged));
    expect(summary.body.requests).toBe(recorded);
    expect(recorded).toBeGreaterThanOrEqual(6);

    const stranger = await t.createKey();
    const theirs = await t.http.get('/v1/usage/summary').set('X-Api-Key', stranger);
    expect(theirs.body).toMatchObject({ days: 7, total_jobs: 0, credits_used: 0 });
    expect(theirs.body.daily).toHaveLength(7);
  });

  it('puts events at the UTC day boundary on the right day', async () => {
    const key = await t.createKey();
    const [{ id }] = await db.query(`SELECT id FROM api_keys WHERE key_hash = encode(sha256($1::bytea), 'hex')`, [key]);
    const lastMomentOfYesterday = new Date(utcDay(0).getTime() - 1);
    const midnight = utcDay(0);
    for (const at of [lastMomentOfYesterday, midnight]) {
      await db.query(`INSERT INTO job_events (api_key_id, job_id, kind, created_at) VALUES ($1, 'job_x', 'created', $2)`, [id, at]);
      // written as a process of the release before writes it (a rolling deploy): its day counts it too
      await db.query(`INSERT INTO usage_events (api_key_id, method, path, status_code, duration_ms, created_at) VALUES ($1, 'GET', '/v1/jobs', 200, 1, $2)`, [id, at]);
    }
    const two = await t.http.get('/v1/usage/summary?days=2').set('X-Api-Key', key);
    expect(two.body.daily.map((d: { total_jobs: number }) => d.total_jobs)).toEqual([1, 1]);
    expect(two.body.daily[0].requests).toBe(1);
    const one = await t.http.get('/v1/usage/summary?days=1').set('X-Api-Key', key);
    expect(one.body.total_jobs).toBe(1);
  });

  it.each([['days=0'], ['days=91'], ['days=seven'], ['days=1.5']])('summary refuses %s', async (query) => {
    const res = await t.http.get(`/v1/usage/summary?${query}`).set('X-Api-Key', await t.createKey());
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].field).toBe('days');
  });

  it.each([['limit=0'], ['limit=101']])('events refuse %s', async (query) => {
    const res = await t.http.get(`/v1/usage/events?${query}`).set('X-Api-Key', await t.createKey());
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', details: [{ field: 'limit' }] });
  });

  it('accepts the boundaries days=1, days=90, limit=1, limit=100', async () => {
    const key = await t.createKey();
    expect((await t.http.get('/v1/usage/summary?days=90').set('X-Api-Key', key)).body.daily).toHaveLength(90);
    expect((await t.http.get('/v1/usage/summary?days=1').set('X-Api-Key', key)).body.daily).toHaveLength(1);
    expect((await t.http.get('/v1/usage/events?limit=1').set('X-Api-Key', key)).status).toBe(200);
    expect((await t.http.get('/v1/usage/events?limit=100').set('X-Api-Key', key)).status).toBe(200);
  });
});
