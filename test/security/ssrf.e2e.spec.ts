import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { eventually, MEDIA_DIR, startTestApp, TestApp } from '../support/test-app';
import { LoopbackServer, startLoopbackServer } from './support/loopback-server';

const CLIP = readFileSync(path.join(MEDIA_DIR, 'portrait-pan.mp4'));
const IMAGE = readFileSync(path.join(MEDIA_DIR, 'astronaut.png'));
const NO_LIMITS = { RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_STARTS_PER_MINUTE: '100000' };
const PUBLIC_VIDEO = 'http://93.184.216.34/video.mp4';

/**
 * URLs the server must refuse to fetch or call, with why. Some are already refused by the DTO's URL
 * validation, the rest by the SSRF guard (its message names the refused address); both are 400 naming the field.
 */
const REFUSED: Array<[string, string]> = [
  ['IPv4 loopback', 'http://127.0.0.1/video.mp4'],
  ['loopback with a port (Redis)', 'http://127.0.0.1:6379/'],
  ['top of 127/8', 'http://127.255.255.254/'],
  ['localhost (a name resolving to loopback, /etc/hosts)', 'http://localhost/video.mp4'],
  ['IPv6 loopback', 'http://[::1]/video.mp4'],
  ['IPv6 unspecified', 'http://[::]/'],
  ['0.0.0.0', 'http://0.0.0.0/video.mp4'],
  ['private 10/8', 'http://10.0.0.1/video.mp4'],
  ['private 10/8, top', 'http://10.255.255.255/'],
  ['private 172.16/12', 'http://172.16.0.1/'],
  ['private 172.16/12, top', 'http://172.31.255.255/'],
  ['private 192.168/16', 'http://192.168.1.1/'],
  ['cloud metadata', 'http://169.254.169.254/latest/meta-data/'],
  ['cloud metadata, https', 'https://169.254.169.254/'],
  ['AWS IPv6 metadata', 'http://[fd00:ec2::254]/latest/meta-data/'],
  ['CGNAT 100.64/10', 'http://100.64.0.1/'],
  ['multicast', 'http://224.0.0.1/'],
  ['IPv6 link-local', 'http://[fe80::1]/'],
  ['IPv6 unique local', 'http://[fc00::1]/'],
  ['IPv4-mapped loopback', 'http://[::ffff:127.0.0.1]/'],
  ['IPv4-mapped metadata, hex', 'http://[::ffff:a9fe:a9fe]/'],
  ['IPv4-compatible loopback', 'http://[::127.0.0.1]/'],
  ['IPv4-translated loopback', 'http://[::ffff:0:7f00:1]/'],
  ['decimal loopback', 'http://2130706433/'],
  ['octal loopback', 'http://0177.0.0.1/'],
  ['hex-octet loopback', 'http://0x7f.0.0.1/'],
  ['hex loopback', 'http://0x7f000001/'],
  ['short-form loopback', 'http://127.1/'],
  ['decimal metadata', 'http://2852039166/'],
  ['file://', 'file:///etc/passwd'],
  ['gopher://', 'gopher://127.0.0.1:6379/_INFO'],
  ['ftp://', 'ftp://example.com/video.mp4'],
  ['credentials in the URL', 'http://user:pass@93.184.216.34/video.mp4'],
];

type FieldCase = [field: string, body: (url: string) => object];
const FIELDS: FieldCase[] = [
  ['video_url', (url) => ({ video_url: url, auto_start: false })],
  ['background.image_url', (url) => ({ video_url: PUBLIC_VIDEO, auto_start: false, background: { type: 'image', image_url: url } })],
  ['webhook_url', (url) => ({ video_url: PUBLIC_VIDEO, auto_start: false, webhook_url: url })],
];

describe('SSRF: refused URLs (no allow-list)', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp(NO_LIMITS);
    key = await t.createKey();
  });
  afterAll(() => t.close());

  it(`the table has at least 25 URLs (${REFUSED.length})`, () => {
    expect(REFUSED.length).toBeGreaterThanOrEqual(25);
  });

  describe.each(FIELDS)('%s', (field, body) => {
    it.each(REFUSED)('refuses %s (%s) with 400 invalid_request naming the field', async (_name, url) => {
      const res = await t.http.post('/v1/jobs').set('X-Api-Key', key).send(body(url));
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    });

    it('accepts a public address', async () => {
      const res = await t.http.post('/v1/jobs').set('X-Api-Key', key).send(body('http://93.184.216.34/file'));
      expect(res.status).toBe(200);
    });
  });

  it('start refuses a refused URL sent as an override, and the draft stays a draft', async () => {
    const draft = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: PUBLIC_VIDEO, auto_start: false });
    const res = await t.http.post(`/v1/jobs/${draft.body.id}/start`).set('X-Api-Key', key).send({ webhook_url: 'http://169.254.169.254/' });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].field).toBe('webhook_url');
    expect((await t.http.get(`/v1/jobs/${draft.body.id}`).set('X-Api-Key', key)).body.status).toBe('created');
  });

  it('the guard, not only URL syntax, refuses: a URL that passes validation names the refused address', async () => {
    const res = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: 'http://0x7f000001/v.mp4' });
    expect(res.body.error.message).toMatch(/127\.0\.0\.1 .*not a public address/);
  });
});

describe('SSRF: an allow-listed loopback server, and redirects from it', () => {
  let t: TestApp;
  let key: string;
  let media: LoopbackServer;
  let victim: LoopbackServer;
  const hooks: Array<{ path: string; event: string }> = [];

  beforeAll(async () => {
    victim = await startLoopbackServer((_req, res) => res.end('secret'));
    media = await startLoopbackServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname.startsWith('/redirect')) {
        res.writeHead(302, { location: url.searchParams.get('to') ?? '/' });
        return res.end();
      }
      if (req.method === 'POST') {
        let raw = '';
        req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
        req.on('end', () => {
          hooks.push({ path: url.pathname, event: JSON.parse(raw).event });
          res.end('ok');
        });
        return;
      }
      const file = url.pathname === '/clip.mp4' ? CLIP : url.pathname === '/bg.png' ? IMAGE : null;
      if (!file) {
        res.writeHead(404);
        return res.end();
      }
      res.writeHead(200, { 'content-type': url.pathname.endsWith('.png') ? 'image/png' : 'video/mp4', 'content-length': String(file.length) });
      res.end(file);
    });
    t = await startTestApp({ ...NO_LIMITS, OUTBOUND_ALLOW_LIST: 'localhost', WEBHOOK_RETRY_SCHEDULE_SECONDS: '60' });
    key = await t.createKey(100000);
  });
  afterAll(async () => {
    await t.close();
    await media.close();
    await victim.close();
  });
  beforeEach(() => {
    victim.hits.length = 0;
  });

  const served = (pathname: string) => `http://localhost:${media.port}${pathname}`;
  const toVictim = (pathname: string) => served(`/redirect?to=${encodeURIComponent(`http://127.0.0.1:${victim.port}${pathname}`)}`);
  const finished = (id: string) =>
    eventually(async () => {
      const job = (await t.http.get(`/v1/jobs/${id}`).set('X-Api-Key', key)).body;
      return job.status === 'completed' || job.status === 'failed' ? job : undefined;
    });

  it('allowed: a video_url on the allow-listed server is fetched and the job completes', async () => {
    const res = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: served('/clip.mp4') });
    expect(res.status).toBe(200);
    expect((await finished(res.body.id)).status).toBe('completed');
    expect(media.hits).toContain('GET /clip.mp4');
  });

  it('allowed: a background image_url on the allow-listed server is fetched and the job completes', async () => {
    const res = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: served('/clip.mp4'), background: { type: 'image', image_url: served('/bg.png') } });
    expect(res.status).toBe(200);
    expect((await finished(res.body.id)).status).toBe('completed');
    expect(media.hits).toContain('GET /bg.png');
  });

  it('allowed: a webhook_url on the allow-listed server receives job.completed', async () => {
    const res = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: served('/clip.mp4'), webhook_url: served('/hook') });
    expect(res.status).toBe(200);
    await eventually(async () => (hooks.some((hook) => hook.path === '/hook' && hook.event === 'job.completed') ? true : undefined));
  });

  it('a video_url that redirects to 127.0.0.1: created (the first hop is allowed), then the job fails with input_unreachable', async () => {
    const res = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: toVictim('/secret.mp4') });
    expect(res.status).toBe(200);
    const job = await finished(res.body.id);
    expect(job).toMatchObject({ status: 'failed', error_code: 'input_unreachable' });
    expect(job.error).toMatch(/127\.0\.0\.1.*not a public address/);
    expect(victim.hits).toEqual([]);
  });

  it('a background image_url that redirects to 127.0.0.1: the job fails with input_unreachable', async () => {
    const res = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: served('/clip.mp4'), background: { type: 'image', image_url: toVictim('/bg.png') } });
    expect(res.status).toBe(200);
    expect(await finished(res.body.id)).toMatchObject({ status: 'failed', error_code: 'input_unreachable' });
    expect(victim.hits).toEqual([]);
  });

  it('a webhook_url that redirects to 127.0.0.1: the redirect is not followed, the private address is never called', async () => {
    const res = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: served('/clip.mp4'), webhook_url: toVictim('/hook') });
    expect(res.status).toBe(200);
    expect((await finished(res.body.id)).status).toBe('completed');
    await eventually(async () => (media.hits.some((hit) => hit.startsWith('POST /redirect')) ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(victim.hits).toEqual([]);
  });

  it('the allow-list names a host, not its addresses: 127.0.0.1 itself stays refused', async () => {
    const res = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: `http://127.0.0.1:${media.port}/clip.mp4` });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].field).toBe('video_url');
  });
});
