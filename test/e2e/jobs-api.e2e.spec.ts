import { statSync } from 'node:fs';
import * as path from 'node:path';
import { MAX_BODY_DEPTH } from '../../src/create-app';
import { eventually, MEDIA_DIR, startTestApp, TestApp } from '../support/test-app';

const CLIP = path.join(MEDIA_DIR, 'portrait-pan.mp4');

function expectEnvelope(body: { success: boolean; error: { code: string; message: string; request_id: string } }, code: string): void {
  expect(body.success).toBe(false);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.request_id).toMatch(/^req_/);
}

/** a public URL (an address literal: nothing to resolve) of exactly `length` characters */
const publicUrlOfLength = (length: number): string => {
  const base = 'http://93.184.216.34/clip.mp4?pad=';
  return base + 'x'.repeat(length - base.length);
};

describe('jobs API end to end (real HTTP, Postgres, queue; fake worker)', () => {
  let t: TestApp;
  let key: string;
  let videoUrl: string;

  beforeAll(async () => {
    // the boundary tables send more than the default 120 requests a minute under one key
    t = await startTestApp({ REDIS_URL: 'redis://127.0.0.1:6379', OUTBOUND_ALLOW_LIST: 'example.com', RATE_LIMIT_PER_MINUTE: '1000' });
    key = await t.createKey();
    const upload = await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', CLIP);
    expect(upload.status).toBe(200);
    videoUrl = upload.body.video_url;
  });
  afterAll(() => t.close());

  const create = (body: object, apiKey = key) => t.http.post('/v1/jobs').set('X-Api-Key', apiKey).send(body);
  const draft = (extra: object = {}) => create({ video_url: videoUrl, auto_start: false, ...extra });
  const waitForStatus = (id: string, status: string) =>
    eventually(async () => {
      const res = await t.http.get(`/v1/jobs/${id}`).set('X-Api-Key', key);
      return res.body.status === status ? res.body : undefined;
    });

  describe('authentication', () => {
    it('answers 401 missing_api_key without a key and 401 invalid_api_key with a wrong one', async () => {
      const missing = await t.http.get('/v1/jobs');
      expect(missing.status).toBe(401);
      expectEnvelope(missing.body, 'missing_api_key');
      const wrong = await t.http.get('/v1/jobs').set('X-Api-Key', 'bd_live_' + 'x'.repeat(32));
      expect(wrong.status).toBe(401);
      expectEnvelope(wrong.body, 'invalid_api_key');
      expect(wrong.headers['x-request-id']).toBe(wrong.body.error.request_id);
    });
  });

  describe('create', () => {
    it('creates a draft with every default applied and metadata echoed', async () => {
      const res = await draft({ metadata: { order: '42' }, some_future_field: true });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: true, status: 'created' });
      expect(res.body.id).toMatch(/^job_[0-9A-Za-z]{26}$/);
      const job = (await t.http.get(`/v1/jobs/${res.body.id}`).set('X-Api-Key', key)).body;
      expect(job).toMatchObject({
        id: res.body.id,
        status: 'created',
        progress: 0,
        output_url: null,
        error: null,
        output_format: 'webm',
        model: 'original',
        background: { type: 'transparent' },
        metadata: { order: '42' },
        billing_status: null,
        webhook_events: {},
      });
      expect(new Date(job.created_at).toISOString()).toBe(job.created_at);
    });

    it.each([
      [{ bg_type: 'green' }, { type: 'color', color: [9, 162, 70] }],
      [{ bg_type: 'blue' }, { type: 'color', color: [0, 71, 187] }],
      [{ bg_type: 'custom', bg_color: [0.035, 0.635, 0.274] }, { type: 'color', color: [9, 162, 70] }],
      [{ bg_type: 'custom', bg_color: [1, 1, 1] }, { type: 'color', color: [255, 255, 255] }],
      [{ bg_type: 'custom', bg_color: [0, 128, 255] }, { type: 'color', color: [0, 128, 255] }],
      [{ bg_type: 'green', background: { type: 'color', color: '#102030' } }, { type: 'color', color: [16, 32, 48] }],
      [{ bg_type: 'white', background: { type: 'transparent' } }, { type: 'transparent' }],
    ])('resolves the background of %j', async (body, background) => {
      const res = await draft(body);
      expect(res.status).toBe(200);
      expect(res.body.job.background).toEqual(background);
    });

    it.each([
      [{ output_format: 'avi' }, 'output_format'],
      [{ model: 'turbo' }, 'model'],
      [{ bg_type: 'purple' }, 'bg_type'],
      // what a draft may leave to its start is refused where the job starts at create
      [{ bg_type: 'custom', auto_start: true }, 'bg_color'],
      [{ bg_type: 'custom', bg_color: [0.5, 128, 3] }, 'bg_color'],
      [{ bg_type: 'custom', bg_color: [0, 0, 256] }, 'bg_color'],
      [{ bg_type: 'custom', bg_color: [0, -1, 0] }, 'bg_color'],
      [{ bg_type: 'custom', bg_color: [1, 2] }, 'bg_color'],
      [{ background: { type: 'color' }, auto_start: true }, 'background.color'],
      [{ background: { type: 'color', color: '#12345' } }, 'background.color'],
      [{ background: { type: 'image' }, auto_start: true }, 'background.image_url'],
      [{ background: { type: 'sparkles' } }, 'background.type'],
      [{ output_format: 'mp4', auto_start: true }, 'output_format'],
      [{ preview_duration: 0.49 }, 'preview_duration'],
      [{ preview_duration: 30.01 }, 'preview_duration'],
      [{ composition: { canvas: { width: 15, height: 100 } } }, 'composition.canvas.width'],
      [{ composition: { canvas: { width: 100, height: 4097 } } }, 'composition.canvas.height'],
      [{ composition: { foreground: { anchor: 'middle' } } }, 'composition.foreground.anchor'],
      [{ composition: { foreground: { scale: 0 } } }, 'composition.foreground.scale'],
      [{ composition: [] }, 'composition'],
      [{ composition: { canvas: [] } }, 'composition.canvas'],
      [{ composition: { canvas: [{ width: 100, height: 100 }] } }, 'composition.canvas'],
      [{ composition: { foreground: [] } }, 'composition.foreground'],
      [{ composition: { foreground: { offset: [1, 2] } } }, 'composition.foreground.offset'],
      [{ background: [{ type: 'color', color: '#123456' }] }, 'background'],
      [{ text_prompt: 'x'.repeat(501) }, 'text_prompt'],
      [{ metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata'],
      [{ metadata: { note: 'x'.repeat(501) } }, 'metadata'],
      [{ metadata: { count: 3 } }, 'metadata'],
      [{ auto_start: 'yes' }, 'auto_start'],
      [{ webhook_url: 'ftp://example.com/hook' }, 'webhook_url'],
      [{ webhook_url: 'http://127.0.0.1:9/hook' }, 'webhook_url'],
      [{ video_url: publicUrlOfLength(2049) }, 'video_url'],
      [{ webhook_url: publicUrlOfLength(2049) }, 'webhook_url'],
      [{ bg_type: 'image', bg_image_url: publicUrlOfLength(2049) }, 'bg_image_url'],
      [{ background: { type: 'image', image_url: publicUrlOfLength(2049) } }, 'background.image_url'],
      [{ metadata: { ['k'.repeat(101)]: 'v' } }, 'metadata'],
      [{ metadata: { '': 'v' } }, 'metadata'],
      [{ metadata: { note: '🎬'.repeat(501) } }, 'metadata'],
      [{ text_prompt: '🎬'.repeat(501) }, 'text_prompt'],
      [{ composition: { foreground: { scale: 0.0099 } } }, 'composition.foreground.scale'],
      [{ composition: { foreground: { scale: 10.01 } } }, 'composition.foreground.scale'],
      [{ composition: { canvas: { width: 4096, height: 1639 }, foreground: { scale: 10 } } }, 'composition.foreground.scale'],
      [{ composition: { foreground: { offset: { x: 8193, y: 0 } } } }, 'composition.foreground.offset.x'],
      [{ composition: { foreground: { offset: { x: 0, y: -8193 } } } }, 'composition.foreground.offset.y'],
    ].map(([body, field]) => [field as string, JSON.stringify(body).slice(0, 60), body as object] as const))('refuses a bad %s (%s) with 400 naming it', async (field, _label, body) => {
      const res = await draft(body);
      expect(res.status).toBe(400);
      expectEnvelope(res.body, 'invalid_request');
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    });

    it.each([
      [{ preview_duration: 0.5 }],
      [{ preview_duration: 30 }],
      [{ composition: { canvas: { width: 16, height: 4096 }, foreground: { anchor: 'bottom-right', scale: 0.5, offset: { x: -10, y: 5 } } } }],
      [{ text_prompt: 'x'.repeat(500) }],
      [{ metadata: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, 'v'.repeat(500)])) }],
      [{ output_format: 'mp4', bg_type: 'black' }],
      [{ video_url: publicUrlOfLength(2048), webhook_url: publicUrlOfLength(2048), background: { type: 'image', image_url: publicUrlOfLength(2048) } }],
      [{ bg_type: 'image', bg_image_url: publicUrlOfLength(2048) }],
      [{ metadata: { ['k'.repeat(100)]: 'v' } }],
      [{ metadata: { ['🎬'.repeat(100)]: '🎬'.repeat(500) }, text_prompt: '🎬'.repeat(500) }],
      [{ composition: { foreground: { scale: 0.01, offset: { x: 8192, y: -8192 } } } }],
      [{ composition: { foreground: { scale: 10, offset: { x: -8192, y: 8192 } } } }],
      [{ composition: { canvas: { width: 4096, height: 1638 }, foreground: { scale: 10 } } }],
    ].map(([body]) => [JSON.stringify(body).slice(0, 70), body] as const))('accepts the boundary value %s', async (_label, body) => {
      const res = await draft(body);
      expect(res.status).toBe(200);
    });

    it('requires video_url and refuses URLs to private addresses', async () => {
      const missing = await create({ auto_start: false });
      expect(missing.status).toBe(400);
      expect(missing.body.error.details.map((d: { field: string }) => d.field)).toContain('video_url');
      const loopback = await create({ video_url: 'http://127.0.0.1/video.mp4' });
      expect(loopback.status).toBe(400);
      expect(loopback.body.error.details[0].field).toBe('video_url');
    });

    it('answers 400 for malformed JSON and 413 for an oversized body, in the envelope', async () => {
      const malformed = await t.http.post('/v1/jobs').set('X-Api-Key', key).set('Content-Type', 'application/json').send('{"video_url": ');
      expect(malformed.status).toBe(400);
      expectEnvelope(malformed.body, 'invalid_request');
      const huge = await t.http.post('/v1/jobs').set('X-Api-Key', key).set('Content-Type', 'application/json').send(JSON.stringify({ video_url: videoUrl, text_prompt: 'x'.repeat(2 * 1024 * 1024) }));
      expect(huge.status).toBe(413);
      expectEnvelope(huge.body, 'file_too_large');
    });
    it.each(['null', '123', '"a string"', '[1, 2]'])('answers 400 "the body must be a JSON object" for the JSON %s, which is valid JSON', async (body) => {
      const res = await t.http.post('/v1/jobs').set('X-Api-Key', key).set('Content-Type', 'application/json').send(body);
      expect(res.status).toBe(400);
      expectEnvelope(res.body, 'invalid_request');
      expect(res.body.error.message).toBe('The body must be a JSON object');
    });

    it('answers 415 for a body declared as something other than JSON (a form, text/plain): it was read as no body, and a start ran the draft with its own settings; a body of no type is read as JSON', async () => {
      const job = await draft();
      const asForm = await t.http.post(`/v1/jobs/${job.body.id}/start`).set('X-Api-Key', key).set('Content-Type', 'application/x-www-form-urlencoded').send('{"output_format":"gif"}');
      expect(asForm.status).toBe(415);
      expectEnvelope(asForm.body, 'unsupported_media_type');
      expect(asForm.body.error.message).toContain('application/json');
      const asText = await t.http.post(`/v1/jobs/${job.body.id}/start`).set('X-Api-Key', key).set('Content-Type', 'text/plain').send(JSON.stringify({ output_format: 'gif' }));
      expect(asText.status).toBe(415);
      expect((await t.http.get(`/v1/jobs/${job.body.id}`).set('X-Api-Key', key)).body.status).toBe(job.body.status);
      // a start with no body at all (as fetch sends it, Content-Length 0 and no type) takes the draft's settings
      const bare = await fetch(`${t.baseUrl}/v1/jobs/${job.body.id}/start`, { method: 'POST', headers: { 'X-Api-Key': key } });
      expect(bare.status).toBe(200);
      const chunkedDraft = await draft(); // an empty chunked body of no type, as Node's http.request sends one after flushHeaders()
      const emptyStream = new ReadableStream({ start: (controller) => controller.close() });
      const chunked = await fetch(`${t.baseUrl}/v1/jobs/${chunkedDraft.body.id}/start`, { method: 'POST', headers: { 'X-Api-Key': key }, body: emptyStream, duplex: 'half' } as RequestInit);
      expect(chunked.status).toBe(200);
      const untypedDraft = await draft();
      const untyped = await fetch(`${t.baseUrl}/v1/jobs/${untypedDraft.body.id}/start`, { method: 'POST', headers: { 'X-Api-Key': key }, body: new Uint8Array(Buffer.from(JSON.stringify({ output_format: 'mov' }))) });
      expect(untyped.status).toBe(200);
      expect((await t.http.get(`/v1/jobs/${untypedDraft.body.id}`).set('X-Api-Key', key)).body.output_format).toBe('mov');
      const asJson = await draft();
      const started = await t.http.post(`/v1/jobs/${asJson.body.id}/start`).set('X-Api-Key', key).set('Content-Type', 'application/json; charset=utf-8').send(JSON.stringify({ output_format: 'gif' }));
      expect(started.status).toBe(200);
      expect((await t.http.get(`/v1/jobs/${asJson.body.id}`).set('X-Api-Key', key)).body.output_format).toBe('gif');
    });

    it("echoes metadata keys that name Object.prototype's members (they were dropped)", async () => {
      const res = await t.http.post('/v1/jobs').set('X-Api-Key', key).set('Content-Type', 'application/json').send(`{"video_url":"${videoUrl}","auto_start":false,"metadata":{"toString":"a","valueOf":"b","hasOwnProperty":"c"}}`);
      expect(res.status).toBe(200);
      expect((await t.http.get(`/v1/jobs/${res.body.id}`).set('X-Api-Key', key)).body.metadata).toEqual({ toString: 'a', valueOf: 'b', hasOwnProperty: 'c' });
    });

    it.each(['__proto__', 'constructor', 'prototype'])('answers 400 naming a metadata key %s, which could not be stored as sent (it was dropped without a word)', async (name) => {
      const res = await t.http.post('/v1/jobs').set('X-Api-Key', key).set('Content-Type', 'application/json').send(`{"video_url":"${videoUrl}","auto_start":false,"metadata":{"b":"c","${name}":"x"}}`);
      expect(res.status).toBe(400);
      expectEnvelope(res.body, 'invalid_request');
      expect(res.body.error.details).toEqual([{ field: `metadata.${name}`, message: expect.stringMatching(/reserved/) }]);
    });

    /** `levels` arrays nested in `metadata.deep` */
    const nested = (levels: number) => `{"video_url":"${videoUrl}","auto_start":false,"metadata":{"deep":${'['.repeat(levels)}${']'.repeat(levels)}}}`;

    it(`answers 400 naming where a body nests more than ${MAX_BODY_DEPTH} levels, 100,000 deep too and without a key (it was a 500: the validators' stack)`, async () => {
      const where = 'metadata.deep' + '[0]'.repeat(MAX_BODY_DEPTH - 2); // the body, metadata and deep are its first three levels
      for (const [levels, withKey] of [[MAX_BODY_DEPTH - 1, true], [2_000, true], [100_000, false]] as const) {
        const res = await (withKey ? t.http.post('/v1/jobs').set('X-Api-Key', key) : t.http.post('/v1/jobs')).set('Content-Type', 'application/json').send(nested(levels));
        expect(res.status).toBe(400);
        expectEnvelope(res.body, 'invalid_request');
        expect(res.body.error.details).toEqual([{ field: where, message: expect.stringMatching(/nested more than 16 levels/) }]);
      }
    });

    it(`lets a body nested exactly ${MAX_BODY_DEPTH} levels through to the fields' own rules`, async () => {
      const res = await t.http.post('/v1/jobs').set('X-Api-Key', key).set('Content-Type', 'application/json').send(nested(MAX_BODY_DEPTH - 2));
      expect(res.status).toBe(400);
      expect(res.body.error.details.map((detail: { field: string }) => detail.field)).toEqual(['metadata']);
    });
  });

  describe('lifecycle', () => {
    it('starts a draft with the overrides existing clients send, runs it through the queue and completes it', async () => {
      const created = await create({ video_url: videoUrl, auto_start: false, bg_type: 'green', metadata: { client: 'node' } });
      const started = await t.http
        .post(`/v1/jobs/${created.body.id}/start`)
        .set('X-Api-Key', key)
        .send({ model: 'light', output_format: 'mov', bg_type: 'custom', bg_color: [0, 0, 1], preview_duration: 2, text_prompt: 'person' });
      expect(started.status).toBe(200);
      expect(['pending', 'processing']).toContain(started.body.status);
      const done = await waitForStatus(created.body.id, 'completed');
      expect(done).toMatchObject({ progress: 100, model: 'light', output_format: 'mov', background: { type: 'color', color: [0, 0, 255] }, preview_duration: 2, duration_seconds: 4 });
      expect(t.fake.tasks.at(-1)?.settings).toMatchObject({ model: 'light', outputFormat: 'mov', previewDuration: 2, textPrompt: 'person' });

      const file = await fetch(done.output_url.replace(/^http:\/\/localhost:\d+/, t.baseUrl));
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toBe('video/quicktime');
      expect((await file.arrayBuffer()).byteLength).toBe(statSync(CLIP).size);

      const again = await t.http.post(`/v1/jobs/${created.body.id}/start`).set('X-Api-Key', key).send({});
      expect(again.status).toBe(409);
      expectEnvelope(again.body, 'invalid_state');
    });

    it("takes a draft that leaves its colour to the start (the Python client's create_job(bg_type='custom', auto_start=False), then start_job(bg_color=...)): shown pending, completed by the start", async () => {
      const created = await create({ video_url: videoUrl, auto_start: false, bg_type: 'custom', output_format: 'mp4' });
      expect(created.status).toBe(200);
      expect((await t.http.get(`/v1/jobs/${created.body.id}`).set('X-Api-Key', key)).body).toMatchObject({ status: 'created', output_format: 'mp4', background: { type: 'color', color: null } });
      const incomplete = await t.http.post(`/v1/jobs/${created.body.id}/start`).set('X-Api-Key', key).send({});
      expect(incomplete.status).toBe(400);
      expect(incomplete.body.error.details).toEqual([expect.objectContaining({ field: 'bg_color' })]);
      const started = await t.http.post(`/v1/jobs/${created.body.id}/start`).set('X-Api-Key', key).send({ bg_color: [0, 0, 1] });
      expect(started.status).toBe(200);
      expect((await waitForStatus(created.body.id, 'completed')).background).toEqual({ type: 'color', color: [0, 0, 255] });
      expect(t.fake.tasks.at(-1)?.settings).toMatchObject({ outputFormat: 'mp4', background: { type: 'color', color: [0, 0, 255] } });
    });

    it('records a worker failure with error and error_code', async () => {
      t.fake.failWith('input_invalid', 'the video stream does not decode');
      try {
        const created = await create({ video_url: videoUrl });
        const failed = await waitForStatus(created.body.id, 'failed');
        expect(failed).toMatchObject({ error: 'the video stream does not decode', error_code: 'input_invalid', output_url: null });
      } finally {
        t.fake.succeedWith(4);
      }
    });

    it('serves downloads through signed URLs: legacy /api/download, tampering and expiry are 403', async () => {
      t.fake.hold();
      const created = await create({ video_url: videoUrl, output_format: 'gif' });
      await waitForStatus(created.body.id, 'processing');
      const early = await t.http.get(`/api/download/${created.body.id}`).set('X-Api-Key', key);
      expect(early.status).toBe(409);
      expectEnvelope(early.body, 'invalid_state');
      t.fake.release();
      await waitForStatus(created.body.id, 'completed');

      const noKey = await t.http.get(`/api/download/${created.body.id}`);
      expect(noKey.status).toBe(401);
      const download = await t.http.get(`/api/download/${created.body.id}`).set('X-Api-Key', key);
      expect(download.body).toMatchObject({ success: true, output_format: 'gif' });
      const url = new URL(download.body.download_url);
      const ok = await t.http.get(url.pathname + url.search);
      expect(ok.status).toBe(200);
      expect(ok.headers['content-type']).toBe('image/gif');

      const tampered = new URL(url);
      tampered.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 1));
      const forged = await t.http.get(tampered.pathname + tampered.search);
      expect(forged.status).toBe(403);
      expectEnvelope(forged.body, 'forbidden');

      const expired = new URL(url);
      expired.searchParams.set('expires', '1000');
      const signer = t.app.get((await import('../../src/modules/storage/application/url-signer')).UrlSigner);
      expired.searchParams.set('signature', signer.sign(url.pathname.replace(/^\/files\//, ''), 1000, url.searchParams.get('name') ?? ''));
      const late = await t.http.get(expired.pathname + expired.search);
      expect(late.status).toBe(403);
      expect(late.body.error.message).toMatch(/expired/);
    });

    it('keeps keys apart: another key sees 404 for the job, and its list is empty', async () => {
      const other = await t.createKey();
      const created = await draft();
      for (const res of [
        await t.http.get(`/v1/jobs/${created.body.id}`).set('X-Api-Key', other),
        await t.http.post(`/v1/jobs/${created.body.id}/start`).set('X-Api-Key', other).send({}),
        await t.http.get(`/api/download/${created.body.id}`).set('X-Api-Key', other),
      ]) {
        expect(res.status).toBe(404);
        expectEnvelope(res.body, 'not_found');
      }
      const list = await t.http.get('/v1/jobs').set('X-Api-Key', other);
      expect(list.body).toMatchObject({ items: [], jobs: [], total: 0 });
      const theirUpload = await create({ video_url: videoUrl, auto_start: false }, other);
      expect(theirUpload.status).toBe(400);
    });

    it('legacy /api/process creates and starts in one call', async () => {
      const res = await t.http.post('/api/process').set('X-Api-Key', key).send({ video_url: videoUrl, bg_type: 'white', output_format: 'mp4' });
      expect(res.status).toBe(200);
      expect(['pending', 'processing']).toContain(res.body.status);
      await waitForStatus(res.body.id, 'completed');
    });
  });

  describe('list', () => {
    it('pages newest first with limit/offset and filters by status', async () => {
      const owner = await t.createKey();
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1) ids.push((await create({ video_url: 'https://example.com/v.mp4', auto_start: false }, owner)).body.id);
      const page = await t.http.get('/v1/jobs?limit=2&offset=1').set('X-Api-Key', owner);
      expect(page.status).toBe(200);
      expect(page.body).toMatchObject({ success: true, total: 3, limit: 2, offset: 1 });
      expect(page.body.items.map((job: { id: string }) => job.id)).toEqual([ids[1], ids[0]]);
      expect(page.body.jobs).toEqual(page.body.items);
      const drafts = await t.http.get('/v1/jobs?status=created').set('X-Api-Key', owner);
      expect(drafts.body.total).toBe(3);
      const none = await t.http.get('/v1/jobs?status=completed').set('X-Api-Key', owner);
      expect(none.body.total).toBe(0);
      const defaults = await t.http.get('/v1/jobs').set('X-Api-Key', owner);
      expect(defaults.body).toMatchObject({ limit: 20, offset: 0 });
    });

    it.each([['limit=0'], ['limit=101'], ['limit=abc'], ['offset=-1'], ['status=done']])('refuses %s', async (query) => {
      const res = await t.http.get(`/v1/jobs?${query}`).set('X-Api-Key', key);
      expect(res.status).toBe(400);
      expectEnvelope(res.body, 'invalid_request');
    });

    it.each([['limit=1'], ['limit=100'], ['offset=0']])('accepts %s', async (query) => {
      expect((await t.http.get(`/v1/jobs?${query}`).set('X-Api-Key', key)).status).toBe(200);
    });
  });

  describe('public and infrastructure routes', () => {
    it('publishes pricing', async () => {
      const res = await t.http.get('/api/pricing');
      expect(res.status).toBe(200);
      expect(res.body.model_pricing_credits_per_minute).toEqual({ original: 60, light: 45, pro: 180, human: 45 });
      expect(res.body.packages.map((p: { name: string }) => p.name)).toEqual(['Starter', 'Pro', 'Business']);
      expect(typeof res.body.price_per_second_cents).toBe('number');
    });

    it('reports health with every check', async () => {
      const res = await t.http.get('/health');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'healthy', checks: { api: 'ok', worker_configured: 'ok', storage_configured: 'ok', database: 'ok', queue: 'ok' } });
      expect((await t.http.get('/health/live')).status).toBe(200);
      expect((await t.http.get('/health/ready')).status).toBe(200);
    });

    it('answers unknown routes with 404 in the envelope', async () => {
      const res = await t.http.get('/v2/nothing');
      expect(res.status).toBe(404);
      expectEnvelope(res.body, 'not_found');
    });

    it('serves an OpenAPI document listing the real routes, and the key each takes (the legacy /api/process too: a client generated from it sent none)', async () => {
      const res = await t.http.get('/openapi.json');
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.paths)).toEqual(expect.arrayContaining(['/v1/jobs', '/v1/jobs/{id}', '/v1/jobs/{id}/start', '/v1/uploads', '/api/pricing', '/health']));
      for (const [path, method] of [['/v1/jobs', 'post'], ['/api/process', 'post'], ['/api/download/{id}', 'get']]) expect(res.body.paths[path][method].security).toEqual([{ apiKey: [] }]);
      expect((await t.http.get('/docs')).status).toBeLessThan(400);
    });

    it('says in the OpenAPI document how errors are answered: the envelope on every /v1 and /api operation, 429 on keyed ones, 503 on /health (no error was described)', async () => {
      const { body } = await t.http.get('/openapi.json');
      expect(body.components.schemas.ErrorEnvelope.properties.error.properties.code.enum).toEqual(expect.arrayContaining(['invalid_request', 'rate_limited', 'insufficient_credits']));
      const operations = Object.entries(body.paths as Record<string, Record<string, { responses: Record<string, { content?: unknown }>; security?: unknown[] }>>).filter(([path]) => /^\/(v1|api)\//.test(path)).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ name: `${method} ${path}`, operation })));
      expect(operations.length).toBeGreaterThan(15);
      for (const { name, operation } of operations) expect([name, operation.responses.default?.content]).toEqual([name, { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } }]);
      expect(body.paths['/v1/jobs'].post.responses['429']).toBeDefined();
      expect(body.paths['/health'].get.responses['503']).toBeDefined();
    });
  });
});
