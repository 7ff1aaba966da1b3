import { ADMIN_TOKEN, startTestApp, TestApp } from '../support/test-app';

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

  it.each([['get', '/v1/admin/config'], ['get', '/v1/admin/keys'], ['post', '/v1/admin/keys']] as const)('refuses %s %s without a valid X-Admin-Token (403)', async (method, path) => {
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

  it('shows the running configuration without secrets', async () => {
    const res = await admin('get', '/v1/admin/config');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ role: 'all', database: 'external', queue_backend: 'postgres', max_upload_bytes: 500 * 1024 * 1024 });
    expect(JSON.stringify(res.body)).not.toContain(ADMIN_TOKEN);
  });
});
