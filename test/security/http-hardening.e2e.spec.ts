import { Logger } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { mkdtempSync, rmSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import request from 'supertest';
import TestAgent from 'supertest/lib/agent';
import { loadConfig } from '../../src/config/app-config';
import { createApp } from '../../src/create-app';
import { migrate } from '../../src/composition/data-source';
import { loadInstanceSecrets } from '../../src/infrastructure/secrets/instance-secrets';
import { ApiKeysService } from '../../src/modules/auth/application/api-keys.service';
import { fingerprintOf, hashApiKey } from '../../src/modules/auth/domain/api-key';
import { ADMIN_TOKEN, startTestApp } from '../support/test-app';
import { createTestDatabase, TestDatabase } from '../support/test-database';

const ALLOWED_ORIGIN = 'https://app.example';
const JSON_LIMIT_BYTES = 2048;

/** The production wiring (createApp: pino logger, access log, helmet, CORS) with its log lines captured. */
describe('HTTP hardening through createApp (headers, CORS, body limit, structured logs)', () => {
  let database: TestDatabase;
  let dataDir: string;
  let app: NestExpressApplication;
  let http: TestAgent;
  let apiKey: string;
  const lines: string[] = [];
  const capture = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      callback();
    },
  });
  const logged = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  const accessLines = () => logged().filter((entry) => entry.msg === 'request');

  beforeAll(async () => {
    database = await createTestDatabase();
    dataDir = mkdtempSync(path.join(tmpdir(), 'backdrop-hardening-'));
    const config = loadConfig({
      DATABASE_URL: database.url,
      ADMIN_TOKEN,
      DATA_DIR: dataDir,
      ROLE: 'api',
      HOST: '127.0.0.1',
      CORS_ORIGINS: `${ALLOWED_ORIGIN}, https://other.example`,
      JSON_BODY_LIMIT: `${JSON_LIMIT_BYTES}b`,
      LOG_LEVEL: 'info',
      QUEUE_NAMESPACE: `q_${path.basename(dataDir).replace(/[^A-Za-z0-9]/g, '')}`,
    });
    const migrations = await migrate(database.url);
    const secrets = await loadInstanceSecrets(migrations, config);
    await migrations.destroy();
    app = await createApp({ config, databaseUrl: database.url, secrets }, { destination: capture });
    await app.listen(0, '127.0.0.1');
    http = request(`http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`);
    apiKey = (await app.get(ApiKeysService).create('hardening', null, 100)).apiKey;
  });
  afterAll(async () => {
    await app.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  describe('security headers (helmet)', () => {
    it('sets them on API responses, and no X-Powered-By', async () => {
      const res = await http.get('/v1/jobs').set('X-Api-Key', apiKey);
      expect(res.status).toBe(200);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(res.headers['strict-transport-security']).toMatch(/max-age=\d+/);
      expect(res.headers['content-security-policy']).toMatch(/default-src 'self'/);
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin'); // signed output URLs may be embedded elsewhere
      expect(res.headers['x-powered-by']).toBeUndefined();
    });

    it('API answers are stored nowhere (Cache-Control: no-store): a job with its signed URLs, the webhook secret, a new key', async () => {
      const answers = [
        await http.get('/v1/jobs/job_00000000000000000000000000').set('X-Api-Key', apiKey), // the job-status lane
        await http.get('/v1/jobs').set('X-Api-Key', apiKey),
        await http.get('/v1/webhooks/secret').set('X-Api-Key', apiKey),
        await http.post('/v1/admin/keys').set('X-Admin-Token', ADMIN_TOKEN).send({ client_id: 'no-store' }),
        await http.get('/api/pricing'),
      ];
      for (const res of answers) expect(res.headers['cache-control']).toBe('no-store');
      expect(answers.map((res) => res.status)).toEqual([404, 200, 200, 200, 200]);
    });

    it('on errors too (envelope responses)', async () => {
      const res = await http.get('/v1/nothing-here');
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    });

    it('the docs page still loads under the policy (no inline script), over plain HTTP too (no upgrade to https)', async () => {
      const res = await http.get('/docs/');
      expect(res.status).toBe(200);
      expect(res.headers['content-security-policy']).toMatch(/script-src 'self'/);
      expect(res.headers['content-security-policy']).not.toMatch(/upgrade-insecure-requests/);
      expect(res.text).not.toMatch(/<script>(?!\s*<\/script>)/);
    });
  });

  describe('CORS (CORS_ORIGINS)', () => {
    it('answers a preflight from an allowed origin, allowing the API headers', async () => {
      const res = await http
        .options('/v1/jobs')
        .set('Origin', ALLOWED_ORIGIN)
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'content-type,x-api-key,idempotency-key');
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe(ALLOWED_ORIGIN);
      expect(res.headers['access-control-allow-headers']).toMatch(/X-Api-Key/i);
      expect(res.headers['access-control-allow-headers']).toMatch(/Idempotency-Key/i);
    });

    it('exposes the request id, rate-limit headers and a ranged download\'s range to an allowed origin', async () => {
      const res = await http.get('/v1/jobs').set('Origin', ALLOWED_ORIGIN).set('X-Api-Key', apiKey);
      expect(res.headers['access-control-allow-origin']).toBe(ALLOWED_ORIGIN);
      for (const header of ['X-Request-Id', 'X-RateLimit-Remaining', 'Retry-After', 'Content-Range', 'Content-Disposition']) expect(res.headers['access-control-expose-headers']).toContain(header);
    });

    it('says nothing to any other origin', async () => {
      const res = await http.options('/v1/jobs').set('Origin', 'https://evil.example').set('Access-Control-Request-Method', 'POST');
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });
  });

  describe('JSON body limit at its boundary', () => {
    const bodyOf = (bytes: number) => {
      const base = { video_url: 'http://93.184.216.34/v.mp4', auto_start: false, pad: '' };
      const body = { ...base, pad: 'x'.repeat(bytes - JSON.stringify(base).length) };
      expect(Buffer.byteLength(JSON.stringify(body))).toBe(bytes);
      return JSON.stringify(body);
    };

    it(`accepts exactly ${JSON_LIMIT_BYTES} bytes and answers 413 in the envelope for one byte more`, async () => {
      const exact = await http.post('/v1/jobs').set('X-Api-Key', apiKey).set('Content-Type', 'application/json').send(bodyOf(JSON_LIMIT_BYTES));
      expect(exact.status).toBe(200);
      const over = await http.post('/v1/jobs').set('X-Api-Key', apiKey).set('Content-Type', 'application/json').send(bodyOf(JSON_LIMIT_BYTES + 1));
      expect(over.status).toBe(413);
      expect(over.body).toEqual({ success: false, error: { code: 'file_too_large', message: expect.any(String), request_id: over.headers['x-request-id'] } });
    });
  });

  describe('bodies and requests the database or Node would choke on', () => {
    it.each([
      ['/v1/admin/keys', 'client_id', { client_id: 'a\u0000b' }],
      ['/v1/jobs', 'metadata.note', { video_url: 'http://93.184.216.34/v.mp4', auto_start: false, metadata: { note: 'x\u0000' } }],
      ['/v1/jobs', 'metadata.k\u0000', { video_url: 'http://93.184.216.34/v.mp4', auto_start: false, metadata: { ['k\u0000']: 'v' } }],
    ])('%s: a NUL character in %j is 400 naming it (found by the fuzzer: it was a 500 from Postgres)', async (route, field, body) => {
      const res = await http.post(route).set('X-Api-Key', apiKey).set('X-Admin-Token', ADMIN_TOKEN).send(body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', details: [{ field, message: expect.stringMatching(/NUL/) }] });
    });

    it.each([
      ['/v1/jobs', 'metadata.a', { video_url: 'http://93.184.216.34/v.mp4', auto_start: false, metadata: { a: '\ud800' } }],
      ['/v1/jobs', 'metadata.\udfff', { video_url: 'http://93.184.216.34/v.mp4', auto_start: false, metadata: { ['\udfff']: 'v' } }],
      ['/v1/jobs', 'text_prompt', { video_url: 'http://93.184.216.34/v.mp4', auto_start: false, text_prompt: 'a\ud800' }],
    ])('%s: a lone UTF-16 surrogate in %j is 400 naming it (found by an audit: it was a 500 from Postgres)', async (route, field, body) => {
      const res = await http.post(route).set('X-Api-Key', apiKey).send(body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', details: [{ field, message: expect.stringMatching(/surrogate/) }] });
    });

    it('a GET or DELETE carrying a body that is not JSON is served, the body left unread (a poll or a health probe that sent one was 400 malformed JSON)', async () => {
      const poll = await http.get('/v1/jobs').set('X-Api-Key', apiKey).set('Content-Type', 'application/json').send('hello');
      expect(poll.status).toBe(200);
      const probe = await http.get('/health/live').set('Content-Type', 'application/json').send('hello');
      expect(probe.status).toBe(200);
    });

    it('a URL longer than Node accepts is 431 in the envelope, not a bare status line, and logged under the id it was given (it was logged nowhere)', async () => {
      lines.length = 0;
      const res = await http.get(`/v1/jobs/${'j'.repeat(20_000)}`).set('X-Api-Key', apiKey);
      expect(res.status).toBe(431);
      expect(res.body).toEqual({ success: false, error: { code: 'invalid_request', message: expect.any(String), request_id: res.headers['x-request-id'] } });
      expect(accessLines().find((line) => line.req_id === res.headers['x-request-id'])).toMatchObject({ status: 431, refused: 'HPE_HEADER_OVERFLOW' });
    });
  });

  describe('structured logs', () => {
    it('writes one JSON access line per request: request id, method, route, status, duration, key fingerprint', async () => {
      lines.length = 0;
      const res = await http.get('/v1/jobs/job_00000000000000000000000000').set('X-Api-Key', apiKey).set('X-Request-Id', 'lb-trace-12345');
      expect(res.status).toBe(404);
      expect(res.headers['x-request-id']).toMatch(/^req_/);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const entry = accessLines().find((line) => line.req_id === res.headers['x-request-id']);
      expect(entry).toMatchObject({
        level: 'info',
        service: 'backdrop',
        method: 'GET',
        route: '/v1/jobs/:id',
        path: '/v1/jobs/job_00000000000000000000000000',
        status: 404,
        key_fingerprint: fingerprintOf(hashApiKey(apiKey)),
        upstream_req_id: 'lb-trace-12345',
        resource_id: 'job_00000000000000000000000000',
        error_code: 'not_found',
      });
      expect(typeof entry?.duration_ms).toBe('number');
      expect(new Date(entry?.time as string).toISOString()).toBe(entry?.time);
    });

    it('names the job a request made in its access line, as the job routes name theirs (nothing tied a job to the request that made it)', async () => {
      lines.length = 0;
      const res = await http.post('/v1/jobs').set('X-Api-Key', apiKey).send({ video_url: 'http://93.184.216.34/v.mp4', auto_start: false });
      expect(res.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(accessLines().find((line) => line.req_id === res.headers['x-request-id'])).toMatchObject({ route: '/v1/jobs', resource_id: res.body.id });
    });

    it('never logs keys, the admin token or URL signatures, from headers, query strings, paths, bodies or messages (the access line kept an admin token in its path)', async () => {
      lines.length = 0;
      const created = await http.post('/v1/admin/keys').set('X-Admin-Token', ADMIN_TOKEN).send({ client_id: 'logged' });
      expect(created.status).toBeLessThan(300);
      const newKey: string = created.body.api_key;
      await http.get('/v1/jobs').set('X-Api-Key', newKey);
      await http.get('/v1/jobs').set('X-Api-Key', 'bd_live_' + 'Z'.repeat(32)); // an unknown key
      await http.get('/files/outputs/x.webm?expires=1&signature=SIGNATUREVALUE1234567890');
      await http.get(`/v1/admin/${ADMIN_TOKEN}`); // pasted into the path by mistake
      await http.get(`/v1/jobs/${ADMIN_TOKEN}`).set('X-Api-Key', apiKey); // where the route takes it for the job's id
      await http.get(`/v1/jobs/${newKey}`).set('X-Api-Key', apiKey).set('X-Request-Id', newKey);
      new Logger('Test').warn(`a careless message with ${newKey} and ${ADMIN_TOKEN} and https://x/files/a?signature=SIGNATUREVALUE1234567890`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const all = lines.join('\n');
      expect(all).not.toContain(newKey);
      expect(all).not.toContain('Z'.repeat(32));
      expect(all).not.toContain(ADMIN_TOKEN);
      expect(all).not.toContain('SIGNATUREVALUE');
      const careless = logged().find((entry) => entry.context === 'Test');
      expect(careless?.msg).toContain(`<key ${fingerprintOf(hashApiKey(newKey))}>`);
      expect(accessLines().find((entry) => entry.path === '/files/outputs/x.webm')).toBeDefined();
    });

    it('a client that disconnects before the answer is logged with status 499', async () => {
      lines.length = 0;
      await new Promise<void>((resolve) => {
        const req = http.post('/v1/uploads').set('X-Api-Key', apiKey).set('Content-Type', 'multipart/form-data; boundary=x');
        req.on('error', () => resolve());
        req.write('--x\r\nContent-Disposition: form-data; name="file"; filename="a.mp4"\r\n\r\n');
        setTimeout(() => {
          req.abort();
          resolve();
        }, 100);
      });
      const entry = await (async () => {
        for (let i = 0; i < 50; i += 1) {
          const found = accessLines().find((line) => line.path === '/v1/uploads');
          if (found) return found;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        return undefined;
      })();
      expect(entry?.status).toBe(499);
    });
  });
});

// Its own app, started last: a second Nest app replaces the process-wide static logger the log tests above rely on.
describe('CORS default', () => {
  it('CORS is off by default (no CORS_ORIGINS)', async () => {
    const plain = await startTestApp();
    try {
      const res = await plain.http.options('/v1/jobs').set('Origin', ALLOWED_ORIGIN).set('Access-Control-Request-Method', 'POST');
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await plain.close();
    }
  });
});
