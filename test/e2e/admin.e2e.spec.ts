import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { ADMIN_TOKEN, eventually, MEDIA_DIR, startTestApp, TestApp } from '../support/test-app';

describe('admin API', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const admin = (method: 'get' | 'post', path: string, token: string | null = ADMIN_TOKEN) => {
    const req = t.http[method](path);
    return token === null ? req : req.set('X-Admin-Token', token);
  };

  it.each([['get', '/v1/admin/config'], ['get', '/v1/admin/keys'], ['post', '/v1/admin/keys'], ['post', '/v1/admin/keys/erase']] as const)('refuses %s %s without a valid X-Admin-Token (403)', async (method, path) => {
    for (const token of [null, 'wrong-token']) {
      const res = await admin(method, path, token);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
  });

  it('issues a key once, lists it by fingerprint, disables, enables and grants credits', async () => {
    const created = await admin('post', '/v1/admin/keys').send({ client_id: 'acme', note: 'first', credits: 100 });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ success: true, client_id: 'acme', note: 'first', credits: 100 });
    expect(created.body.api_key).toMatch(/^bd_live_[0-9A-Za-z]{32}$/);
    const fingerprint = created.body.key_fingerprint;
    expect(fingerprint).toMatch(/^[0-9a-f]{12}$/);

    const list = await admin('get', '/v1/admin/keys');
    const listed = list.body.items.find((item: { key_fingerprint: string }) => item.key_fingerprint === fingerprint);
    expect(listed).toMatchObject({ client_id: 'acme', enabled: true, credits: 100 });
    expect(JSON.stringify(list.body)).not.toContain(created.body.api_key);

    expect((await t.http.get('/v1/jobs').set('X-Api-Key', created.body.api_key)).status).toBe(200);
    expect((await admin('post', '/v1/admin/keys/disable').send({ key_fingerprint: fingerprint })).body.enabled).toBe(false);
    const refused = await t.http.get('/v1/jobs').set('X-Api-Key', created.body.api_key);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('invalid_api_key');
    expect((await admin('post', '/v1/admin/keys/enable').send({ key_fingerprint: fingerprint })).body.enabled).toBe(true);
    expect((await t.http.get('/v1/jobs').set('X-Api-Key', created.body.api_key)).status).toBe(200);

    expect((await admin('post', '/v1/admin/keys/credits').send({ key_fingerprint: fingerprint, credits: 50 })).body.credits).toBe(150);
    expect((await admin('post', '/v1/admin/keys/credits').send({ key_fingerprint: fingerprint, credits: -1000 })).body.credits).toBe(0);
  });

  it('validates admin bodies and answers 404 for an unknown fingerprint', async () => {
    const noClient = await admin('post', '/v1/admin/keys').send({ credits: 5 });
    expect(noClient.status).toBe(400);
    expect(noClient.body.error.details[0].field).toBe('client_id');
    const negative = await admin('post', '/v1/admin/keys').send({ client_id: 'x', credits: -1 });
    expect(negative.status).toBe(400);
    const badFingerprint = await admin('post', '/v1/admin/keys/disable').send({ key_fingerprint: 'nope' });
    expect(badFingerprint.status).toBe(400);
    const unknown = await admin('post', '/v1/admin/keys/disable').send({ key_fingerprint: '0123456789ab' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
  });

  it('holds the key fields at their limits: client_id 1..100, note up to 500, credits 0..1e9, a grant within ±1e9', async () => {
    const fieldsRefused = async (body: object, path = '/v1/admin/keys') => {
      const res = await admin('post', path).send(body);
      return res.status === 400 ? res.body.error.details.map((detail: { field: string }) => detail.field) : res.status;
    };
    expect(await fieldsRefused({ client_id: 'c'.repeat(100), note: 'n'.repeat(500), credits: 1e9 })).toBe(200);
    expect(await fieldsRefused({ client_id: 'c'.repeat(101) })).toEqual(['client_id']);
    expect(await fieldsRefused({ client_id: '' })).toEqual(['client_id']);
    expect(await fieldsRefused({ client_id: 'c', note: 'n'.repeat(501) })).toEqual(['note']);
    expect(await fieldsRefused({ client_id: 'c', credits: 1e9 + 1 })).toEqual(['credits']);

    const created = await admin('post', '/v1/admin/keys').send({ client_id: 'grants' });
    const grant = (credits: number) => fieldsRefused({ key_fingerprint: created.body.key_fingerprint, credits }, '/v1/admin/keys/credits');
    expect(await grant(1e9)).toBe(200);
    expect(await grant(-1e9)).toBe(200);
    expect(await grant(1e9 + 1)).toEqual(['credits']);
    expect(await grant(-1e9 - 1)).toEqual(['credits']);
  });

  it('shows the running configuration without secrets', async () => {
    const res = await admin('get', '/v1/admin/config');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ role: 'all', database: 'external', queue_backend: 'postgres', max_upload_bytes: 500 * 1024 * 1024 });
    expect(JSON.stringify(res.body)).not.toContain(ADMIN_TOKEN);
  });
});

describe("admin API: a key's data erased, on Postgres and the disk", () => {
  let t: TestApp;
  let receiver: http.Server;
  let hookUrl: string;
  beforeAll(async () => {
    t = await startTestApp({ OUTBOUND_ALLOW_LIST: '127.0.0.1' });
    receiver = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    await t.close();
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('deletes its upload and output files, erases its rows in Postgres, and leaves what was done and what it cost', async () => {
    const created = await t.http.post('/v1/admin/keys').set('X-Admin-Token', ADMIN_TOKEN).send({ client_id: 'leaving', credits: 100 });
    const key = created.body.api_key;
    const upload = await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', path.join(MEDIA_DIR, 'portrait-pan.mp4'), 'holiday-in-rome.mp4');
    const job = await t.http.post('/v1/jobs').set('X-Api-Key', key).set('Idempotency-Key', 'order-1').send({ video_url: upload.body.video_url, model: 'light', metadata: { customer: 'Ada Lovelace' }, webhook_url: hookUrl });
    await eventually(async () => ((await t.http.get(`/v1/jobs/${job.body.id}`).set('X-Api-Key', key)).body.status === 'completed' ? true : undefined), 30000);
    const db = t.app.get(DataSource);
    const deliveriesOf = async () => Number((await db.query(`SELECT count(*) AS n FROM webhook_deliveries WHERE job_id = $1`, [job.body.id]))[0].n);
    expect(await deliveriesOf()).toBeGreaterThan(0);
    const filesOf = async () => (await db.query(`SELECT u.storage_key AS upload, j.output_key AS output FROM jobs j JOIN uploads u ON u.api_key_id = j.api_key_id WHERE j.id = $1`, [job.body.id]))[0];
    const { upload: uploadKey, output: outputKey } = await filesOf();
    const onDisk = (storageKey: string) => existsSync(path.join(t.dataDir, 'storage', storageKey));
    expect([onDisk(uploadKey), onDisk(outputKey)]).toEqual([true, true]);

    const erased = await t.http.post('/v1/admin/keys/erase').set('X-Admin-Token', ADMIN_TOKEN).send({ key_fingerprint: created.body.key_fingerprint });
    expect(erased.body).toMatchObject({ enabled: false, erased: { jobs_ended: 0, jobs: 1, uploads: 1, files: 2 } });
    expect([onDisk(uploadKey), onDisk(outputKey)]).toEqual([false, false]);
    const [row] = await db.query(`SELECT j.video_url, j.metadata, j.output_deleted_at IS NOT NULL AS output_deleted, j.charged_credits, j.status, u.filename, u.deleted_at IS NOT NULL AS upload_deleted FROM jobs j JOIN uploads u ON u.api_key_id = j.api_key_id WHERE j.id = $1`, [job.body.id]);
    expect(row).toMatchObject({ video_url: '', metadata: null, output_deleted: true, status: 'completed', filename: '', upload_deleted: true });
    expect(Number(row.charged_credits)).toBeGreaterThan(0);
    const [left] = await db.query(
      `SELECT (SELECT count(*) FROM idempotency_keys WHERE api_key_id = k.id)::int AS idempotency, (SELECT count(*) FROM webhook_deliveries WHERE api_key_id = k.id)::int AS deliveries FROM api_keys k WHERE key_fingerprint = $1`,
      [created.body.key_fingerprint],
    );
    expect(left).toEqual({ idempotency: 0, deliveries: 0 });
  });
});
