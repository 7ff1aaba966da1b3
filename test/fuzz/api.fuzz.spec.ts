import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Response } from 'supertest';
import { ERROR_HTTP_STATUS } from '../../src/common/errors/error-codes';
import { fingerprintOf, hashApiKey } from '../../src/modules/auth/domain/api-key';
import { ADMIN_TOKEN, MEDIA_DIR, startTestApp, TestApp } from '../support/test-app';
import { anyJson, arbitraryFor, FuzzContext, headerValue, nastyString, OpenApiDocument, Operation, operationsOf } from './support/openapi-arbitraries';

/**
 * Requests generated from the served OpenAPI document against every endpoint of the real app:
 * schema-shaped values at and past their bounds, wrong types, huge strings, missing or wrong
 * credentials, broken bodies. Every answer must be below 500, and every error in the contract envelope.
 * FUZZ_RUNS sets the runs per endpoint (`npm test`: 40; `npm run test:fuzz`: 400).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 40);
const CLIP = readFileSync(path.join(MEDIA_DIR, 'portrait-pan.mp4'));
const CODES = Object.keys(ERROR_HTTP_STATUS);

type Auth = 'valid' | 'missing' | 'wrong' | 'garbage';
type Body =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown }
  | { kind: 'raw'; contentType: string | null; text: string }
  | { kind: 'file'; field: string; bytes: Buffer; filename: string; contentType: string }
  | { kind: 'fields'; fields: Record<string, string> };

interface Plan {
  auth: Auth;
  path: string;
  query: Record<string, string>;
  body: Body;
  idempotencyKey: string | null;
}

let tried = 0;
const statuses = new Map<number, number>();

/** The body as text (send() parses every answer as text, whatever its type). */
const textOf = (res: Response): string => (typeof res.body === 'string' ? res.body : (res.text ?? ''));

function assertContractAnswer(res: Response, label: string): void {
  tried += 1;
  const text = textOf(res);
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  if (res.status >= 500) throw new Error(`${label}: HTTP ${res.status} ${text.slice(0, 300)}`);
  if (res.status < 400) return;
  let body: { success?: unknown; error?: { code?: unknown; message?: unknown; request_id?: unknown; details?: unknown } };
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${label}: HTTP ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`);
  }
  const error = body.error;
  const ok =
    body.success === false &&
    typeof error?.code === 'string' &&
    CODES.includes(error.code) &&
    typeof error.message === 'string' &&
    typeof error.request_id === 'string' &&
    /^req_/.test(error.request_id) &&
    res.headers['x-request-id'] === error.request_id &&
    (error.details === undefined || Array.isArray(error.details));
  if (!ok) throw new Error(`${label}: HTTP ${res.status} outside the envelope: ${text.slice(0, 300)}`);
}

describe('API fuzzing from /openapi.json', () => {
  let t: TestApp;
  let doc: OpenApiDocument;
  let context: FuzzContext;
  let apiKey: string;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_STARTS_PER_MINUTE: '1000000' });
    apiKey = await t.createKey(1_000_000);
    const victim = await t.createKey(10); // the admin operations may disable or drain this one, never the fuzzer's own
    const upload = await t.http.post('/v1/uploads').set('X-Api-Key', apiKey).attach('file', CLIP, 'clip.mp4');
    const job = await t.http.post('/v1/jobs').set('X-Api-Key', apiKey).send({ video_url: upload.body.video_url, auto_start: false });
    context = { baseUrl: t.baseUrl, jobId: job.body.id, uploadId: upload.body.video_id, fingerprint: fingerprintOf(hashApiKey(victim)) };
    doc = (await t.http.get('/openapi.json')).body;
  });
  afterAll(async () => {
    process.stdout.write(`[fuzz] ${tried} requests tried (${RUNS} runs per endpoint); statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}\n`);
    await t.close();
  });

  const pathValue = (name: string, op: Operation): fc.Arbitrary<string> => {
    const known = name === 'id' ? (op.path.includes('uploads') ? context.uploadId : context.jobId) : 'x';
    return fc.oneof(
      { weight: 3, arbitrary: fc.constant(known) },
      { weight: 1, arbitrary: fc.constantFrom('job_' + '0'.repeat(26), 'vid_' + '0'.repeat(26), '%', '..%2F..%2Fetc%2Fpasswd', 'job_' + 'x'.repeat(20_000)) },
      { weight: 4, arbitrary: nastyString(context).map((value) => encodeURIComponent(value.slice(0, 5000))) },
    );
  };

  const bodyArbitrary = (op: Operation): fc.Arbitrary<Body> => {
    const noise: fc.Arbitrary<Body> = fc.oneof(
      fc.constant<Body>({ kind: 'none' }),
      fc.constantFrom<Body>(
        { kind: 'raw', contentType: 'application/json', text: '{"video_url": ' },
        { kind: 'raw', contentType: 'application/json', text: '' },
        { kind: 'raw', contentType: 'application/json', text: 'null' },
        { kind: 'raw', contentType: 'application/json', text: '[1,2,3]' },
        { kind: 'raw', contentType: 'application/json', text: '"just a string"' },
        { kind: 'raw', contentType: 'application/json', text: '{"__proto__": {"admin": true}}' },
        { kind: 'raw', contentType: 'application/json', text: `{"pad": "${'x'.repeat(1_100_000)}"}` },
        { kind: 'raw', contentType: 'text/plain', text: 'video_url=http://93.184.216.34/v.mp4' },
        { kind: 'raw', contentType: 'application/x-www-form-urlencoded', text: 'video_url=http%3A%2F%2F93.184.216.34%2Fv.mp4&auto_start=false' },
        { kind: 'raw', contentType: 'multipart/form-data; boundary=zz', text: '--zz\r\nContent-Disposition: form-data; name="file"; filename="a.mp4"\r\n\r\nnot closed' },
        { kind: 'raw', contentType: 'multipart/form-data', text: 'no boundary at all' },
        { kind: 'raw', contentType: null, text: '{"video_url": "http://93.184.216.34/v.mp4"}' },
      ),
      anyJson.map<Body>((value) => ({ kind: 'json', value })),
    );
    if (op.bodyType === 'json') return fc.oneof({ weight: 5, arbitrary: arbitraryFor(doc, op.bodySchema ?? {}, context).map<Body>((value) => ({ kind: 'json', value })) }, { weight: 2, arbitrary: noise });
    if (op.bodyType === 'multipart') {
      const file = fc.record({
        field: fc.constantFrom('file', 'file', 'video', ''),
        bytes: fc.oneof(fc.constant(CLIP), fc.uint8Array({ maxLength: 4096 }).map((bytes) => Buffer.from(bytes)), fc.constant(Buffer.concat([CLIP.subarray(0, 64), Buffer.alloc(2000)]))),
        filename: fc.oneof(fc.constantFrom('clip.mp4', 'a.webm', '../../x.mp4', ''), nastyString(context).map((value) => value.slice(0, 300).replace(/["\r\n\\]/g, '_') || 'f')),
        contentType: fc.constantFrom('video/mp4', 'application/octet-stream', 'text/html'),
      });
      return fc.oneof(
        { weight: 4, arbitrary: file.map<Body>((value) => ({ kind: 'file', ...value })) },
        { weight: 1, arbitrary: fc.dictionary(fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 10 }), fc.string({ maxLength: 50 }), { maxKeys: 3 }).map<Body>((fields) => ({ kind: 'fields', fields })) },
        { weight: 2, arbitrary: noise },
      );
    }
    return fc.oneof({ weight: 3, arbitrary: fc.constant<Body>({ kind: 'none' }) }, { weight: 1, arbitrary: noise });
  };

  const planArbitrary = (op: Operation): fc.Arbitrary<Plan> => {
    const pathParams = op.parameters.filter((p) => p.in === 'path');
    const queryParams = op.parameters.filter((p) => p.in === 'query');
    const pathArb = fc.tuple(...pathParams.map((p) => pathValue(p.name, op))).map((values) => pathParams.reduce((url, p, i) => url.replace(`{${p.name}}`, values[i]), op.path));
    const queryArb = fc.record(
      Object.fromEntries(
        queryParams.map((p) => [p.name, fc.oneof(arbitraryFor(doc, p.schema ?? { type: 'string' }, context).map((value) => (typeof value === 'string' ? value.slice(0, 3000) : JSON.stringify(value ?? ''))), fc.constantFrom('-1', '0', '1', '100', '101', '1e3', '0x10', ' 5', '9'.repeat(30)))]),
      ),
      { requiredKeys: [] },
    ) as fc.Arbitrary<Record<string, string>>;
    return fc.record({
      auth: fc.oneof({ weight: 6, arbitrary: fc.constant<Auth>('valid') }, { weight: 1, arbitrary: fc.constantFrom<Auth>('missing', 'wrong', 'garbage') }),
      path: pathArb,
      query: queryArb,
      body: bodyArbitrary(op),
      idempotencyKey: fc.option(fc.oneof(headerValue(40), headerValue(300)), { freq: 3 }),
    });
  };

  async function send(op: Operation, plan: Plan): Promise<Response> {
    const method = op.method.toLowerCase() as 'get' | 'post';
    let req = t.http[method](plan.path).query(plan.query);
    const credential = { valid: op.security === 'adminToken' ? ADMIN_TOKEN : apiKey, wrong: op.security === 'adminToken' ? 'x'.repeat(40) : `bd_live_${'A'.repeat(32)}`, garbage: 'not a key \t', missing: null }[plan.auth];
    if (credential !== null && op.security !== 'none') req = req.set(op.security === 'adminToken' ? 'X-Admin-Token' : 'X-Api-Key', credential);
    if (op.security === 'none' && plan.auth === 'valid') req = req.set('X-Api-Key', apiKey);
    if (plan.idempotencyKey !== null) req = req.set('Idempotency-Key', plan.idempotencyKey);
    const body = plan.body;
    if (body.kind === 'json') req = req.set('Content-Type', 'application/json').send(JSON.stringify(body.value));
    else if (body.kind === 'raw') req = (body.contentType ? req.set('Content-Type', body.contentType) : req).send(body.text);
    else if (body.kind === 'file') req = req.attach(body.field, body.bytes, { filename: body.filename, contentType: body.contentType });
    else if (body.kind === 'fields') for (const [name, value] of Object.entries(body.fields)) req = req.field(name, value);
    return req.buffer(true).parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done(null, Buffer.concat(chunks).toString('utf8')));
    }) as unknown as Promise<Response>;
  }

  it('covers every operation of the document', () => {
    const operations = operationsOf(doc);
    expect(operations.length).toBeGreaterThanOrEqual(20);
    for (const required of ['POST /v1/jobs', 'GET /v1/jobs/{id}', 'POST /v1/jobs/{id}/start', 'POST /v1/uploads', 'GET /v1/jobs']) {
      expect(operations.map((op) => `${op.method} ${op.path}`)).toContain(required);
    }
  });

  it('every endpoint: no 5xx, every error in the envelope', async () => {
    for (const op of operationsOf(doc)) {
      const label = `${op.method} ${op.path}`;
      await fc.assert(
        fc.asyncProperty(planArbitrary(op), async (plan) => {
          const res = await send(op, plan);
          // GET /health is 503 by design when a dependency is down; nothing here takes one down.
          assertContractAnswer(res, label);
        }),
        { numRuns: RUNS, endOnFailure: false },
      );
    }
  }, Math.max(60_000, RUNS * 1_000));

  it('unknown routes and methods: 404 in the envelope', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('get', 'post', 'delete', 'put', 'patch'), nastyString(context), async (method, tail) => {
        const res = await t.http[method as 'get'](`/v1/${encodeURIComponent(tail.slice(0, 3000))}/x`).set('X-Api-Key', apiKey);
        assertContractAnswer(res, `${method} unknown`);
        expect(res.status).toBeGreaterThanOrEqual(400);
      }),
      { numRuns: RUNS },
    );
  });
});
