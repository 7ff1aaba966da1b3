import Ajv from 'ajv';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Response } from 'supertest';
import { InMemoryOutboundHttp } from '../../../src/common/in-memory.outbound-http';
import { OutboundHttp } from '../../../src/common/outbound-http';
import { InMemoryVideoProbe } from '../../../src/modules/uploads/adapters/in-memory/in-memory.video-probe';
import { VideoProbe } from '../../../src/modules/uploads/ports/video-probe';
import { InMemoryApp, startInMemoryApp } from '../../support/in-memory-app';
import { ADMIN_TOKEN, eventually, MEDIA_DIR, swap } from '../../support/test-app';

interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
}
type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };

/** Terminus documents the readiness check's answer itself. */
const DOCUMENTED_ELSEWHERE = ['GET /health/ready'];

/**
 * Every answer of the API against the schema its operation gives in /openapi.json: a client generated
 * from the document had no type for any answer. Each operation is called once, as a client would, and
 * each one the document lists must have been checked here.
 */
describe('the OpenAPI document describes every answer', () => {
  const clip = readFileSync(path.join(MEDIA_DIR, 'portrait-pan.mp4'));
  const internet = new InMemoryOutboundHttp().serve('https://videos.example.com/clip.mp4', clip);
  const probe = new InMemoryVideoProbe().knowVideo(clip, { durationSeconds: 8, width: 640, height: 360 });
  let t: InMemoryApp;
  let doc: Document;
  let key: string;
  const ajv = new Ajv({ nullable: true, unknownFormats: 'ignore', allErrors: true });
  const checked = new Set<string>();

  beforeAll(async () => {
    t = await startInMemoryApp({ ALLOW_KEYLESS_DOWNLOAD: 'false' }, { adapters: [swap(OutboundHttp, internet), swap(VideoProbe, probe)] });
    doc = (await t.http.get('/openapi.json')).body;
    ajv.addSchema({ components: doc.components }, 'document');
    key = await t.createKey(10_000);
  });
  afterAll(() => t.close());

  /** the answer, checked against its operation's 200 schema (or its media type, for a file) */
  function answers(operation: string, res: Response): Response {
    const [method, route] = operation.split(' ');
    expect(`${operation} ${res.status} ${res.status === 200 ? '' : JSON.stringify(res.body)}`).toBe(`${operation} 200 `);
    const content = doc.paths[route]?.[method.toLowerCase()]?.responses['200']?.content;
    expect(content).toBeDefined();
    const json = content!['application/json']?.schema?.$ref;
    if (json) {
      const validate = ajv.compile({ $ref: `document${json}` });
      expect({ operation, valid: validate(res.body), errors: validate.errors ?? null }).toEqual({ operation, valid: true, errors: null });
    } else {
      expect(Object.keys(content!)).toContain(res.headers['content-type']);
    }
    checked.add(operation);
    return res;
  }
  const keyed = <T extends { set(name: string, value: string): T }>(request: T): T => request.set('X-Api-Key', key);
  const admin = <T extends { set(name: string, value: string): T }>(request: T): T => request.set('X-Admin-Token', ADMIN_TOKEN);
  const settled = (id: string) => eventually(async () => ((await keyed(t.http.get(`/v1/jobs/${id}`))).body.status === 'completed' ? true : undefined), 5000, 5);

  it('health, pricing and models', async () => {
    answers('GET /health', await t.http.get('/health'));
    answers('GET /health/live', await t.http.get('/health/live'));
    answers('GET /api/pricing', await t.http.get('/api/pricing'));
    answers('GET /v1/models', await keyed(t.http.get('/v1/models')));
  });

  it('uploads and jobs, from a draft to a download', async () => {
    const upload = answers('POST /v1/uploads', await keyed(t.http.post('/v1/uploads')).attach('file', clip, 'clip.mp4'));
    answers('POST /api/upload', await keyed(t.http.post('/api/upload')).attach('file', clip, 'clip.mp4'));
    answers('GET /v1/uploads/{id}', await keyed(t.http.get(`/v1/uploads/${upload.body.video_id}`)));
    const draft = answers('POST /v1/jobs', await keyed(t.http.post('/v1/jobs')).send({ video_url: upload.body.video_url, auto_start: false, bg_type: 'color', metadata: { order: '7' } }));
    answers('POST /v1/jobs/{id}/start', await keyed(t.http.post(`/v1/jobs/${draft.body.id}/start`)).send({ bg_color: [0, 255, 0], output_format: 'mp4' }));
    await settled(draft.body.id);
    answers('GET /v1/jobs/{id}', await keyed(t.http.get(`/v1/jobs/${draft.body.id}`)));
    answers('GET /api/download/{id}', await keyed(t.http.get(`/api/download/${draft.body.id}`)));
    const legacy = answers('POST /api/process', await keyed(t.http.post('/api/process')).send({ video_url: 'https://videos.example.com/clip.mp4', composition: { canvas: { width: 320, height: 180 }, foreground: { anchor: 'center', scale: 0.5 } } }));
    await settled(legacy.body.id);
    t.fake.hold();
    const held = await keyed(t.http.post('/v1/jobs')).send({ video_url: 'https://videos.example.com/clip.mp4', model: 'pro', text_prompt: 'person' });
    answers('POST /v1/jobs/{id}/cancel', await keyed(t.http.post(`/v1/jobs/${held.body.id}/cancel`)));
    t.fake.release();
    answers('GET /v1/jobs', await keyed(t.http.get('/v1/jobs?limit=5')));
  });

  it('webhook secrets and usage', async () => {
    answers('GET /v1/webhooks/secret', await keyed(t.http.get('/v1/webhooks/secret')));
    answers('POST /v1/webhooks/secret', await keyed(t.http.post('/v1/webhooks/secret')));
    answers('GET /v1/usage/summary', await keyed(t.http.get('/v1/usage/summary?days=3')));
    answers('GET /v1/usage/events', await keyed(t.http.get('/v1/usage/events?limit=5')));
  });

  it('administration', async () => {
    answers('GET /v1/admin/config', await admin(t.http.get('/v1/admin/config')));
    const created = answers('POST /v1/admin/keys', await admin(t.http.post('/v1/admin/keys')).send({ client_id: 'reseller', note: 'for the docs', credits: 5 }));
    const fingerprint = { key_fingerprint: created.body.key_fingerprint };
    answers('GET /v1/admin/keys', await admin(t.http.get('/v1/admin/keys')));
    answers('POST /v1/admin/keys/disable', await admin(t.http.post('/v1/admin/keys/disable')).send(fingerprint));
    answers('POST /v1/admin/keys/enable', await admin(t.http.post('/v1/admin/keys/enable')).send(fingerprint));
    answers('POST /v1/admin/keys/credits', await admin(t.http.post('/v1/admin/keys/credits')).send({ ...fingerprint, credits: 3 }));
    answers('POST /v1/admin/keys/erase', await admin(t.http.post('/v1/admin/keys/erase')).send(fingerprint));
  });

  it('a schema that the answer does not fit is caught (the check can fail)', () => {
    const validate = ajv.compile({ $ref: 'document#/components/schemas/JobStatus' });
    expect(validate({ success: true, id: 'job_x' })).toBe(false);
  });

  it('every operation the document lists was checked above', () => {
    const listed = Object.entries(doc.paths).flatMap(([route, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${route}`));
    expect(listed.filter((operation) => !checked.has(operation) && !DOCUMENTED_ELSEWHERE.includes(operation))).toEqual([]);
  });
});
