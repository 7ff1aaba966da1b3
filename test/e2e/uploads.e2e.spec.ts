import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as http from 'node:http';
import * as path from 'node:path';
import { uploadStorageKey } from '../../src/modules/uploads/domain/upload';
import { MEDIA_DIR, startTestApp, TestApp } from '../support/test-app';
import { ffmpeg, probeStreams } from '../engine/support/media-tools';

const CLIP = path.join(MEDIA_DIR, 'portrait-pan.mp4');
const CLIP_BYTES = statSync(CLIP).size;

function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => entry.name);
  } catch {
    return [];
  }
}

/** Streams a multipart upload of `size` bytes (an mp4 signature, then zeros) without holding it in memory. */
function streamUpload(baseUrl: string, key: string, size: number): Promise<{ status: number; body: { error?: { code: string } } }> {
  const boundary = 'backdropboundary';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.mp4"\r\nContent-Type: video/mp4\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const signature = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom')]);
  const url = new URL('/v1/uploads', baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      headers: { 'X-Api-Key': key, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': head.length + size + tail.length },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString() || '{}') }));
    });
    req.on('error', reject);
    const chunk = Buffer.alloc(1024 * 1024);
    let sent = 0;
    req.write(head);
    req.write(signature);
    sent += signature.length;
    const pump = (): void => {
      while (sent < size) {
        const piece = chunk.subarray(0, Math.min(chunk.length, size - sent));
        sent += piece.length;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
      req.end(tail);
    };
    pump();
  });
}

describe('uploads', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp();
    key = await t.createKey();
  });
  afterAll(() => t.close());

  it('stores a real video, decides its type by its bytes and confirms it with ffprobe', async () => {
    const res = await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', CLIP, { filename: 'clip.bin', contentType: 'application/octet-stream' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, filename: 'clip.bin', size: CLIP_BYTES, content_type: 'video/mp4' });
    expect(res.body.video_id).toMatch(/^vid_[0-9A-Za-z]{26}$/);
    expect(res.body.duration_seconds).toBeCloseTo(4, 0);
    const served = await t.http.get(new URL(res.body.video_url).pathname).set('X-Api-Key', key);
    expect(served.status).toBe(200);
    expect(Buffer.compare(served.body, readFileSync(CLIP))).toBe(0);
    const other = await t.createKey();
    expect((await t.http.get(new URL(res.body.video_url).pathname).set('X-Api-Key', other)).status).toBe(404);
  });

  it.each(['/v1/uploads', '/api/upload'])('%s: a filename in UTF-8, as curl, browsers and the Python client send it, comes back as it was (it came back as Latin-1)', async (route) => {
    const boundary = 'backdropboundary';
    const part = (disposition: string) =>
      Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; ${disposition}\r\nContent-Type: video/mp4\r\n\r\n`, 'utf8'), readFileSync(CLIP), Buffer.from(`\r\n--${boundary}--\r\n`)]);
    const send = (disposition: string) => t.http.post(route).set('X-Api-Key', key).set('Content-Type', `multipart/form-data; boundary=${boundary}`).send(part(disposition));
    const raw = await send('filename="naïve vidéo ü.mp4"');
    expect(raw.status).toBe(200);
    expect(raw.body.filename).toBe('naïve vidéo ü.mp4');
    // RFC 5987's form states its charset
    const extended = await send(`filename*=UTF-8''${encodeURIComponent('çà.mp4')}`);
    expect(extended.body.filename).toBe('çà.mp4');
    // a NUL, which Postgres refuses in text (answered 500), and other controls are left out
    const controls = await send(`filename*=UTF-8''a%00b%07c%0A.mp4`);
    expect([controls.status, controls.body.filename]).toEqual([200, 'abc.mp4']);
  });

  it("accepts a browser's recording, whose WebM states no duration, with the duration its packets span", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'upload-live-'));
    try {
      const recorded = path.join(dir, 'recorded.webm');
      await ffmpeg(['-t', '2', '-i', CLIP, '-c:v', 'libvpx', '-b:v', '500k', '-an', '-live', '1', '-f', 'webm', '-y', recorded]);
      expect((await probeStreams(recorded)).format.duration).toBeUndefined();
      const res = await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', recorded, { filename: 'recording.webm', contentType: 'video/webm' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: true, content_type: 'video/webm' });
      expect(res.body.duration_seconds).toBeCloseTo(2, 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers 410 gone, not a server error, for an upload whose file was deleted after it was looked up (a download racing retention)', async () => {
    const res = await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', CLIP);
    rmSync(path.join(t.dataDir, 'storage', uploadStorageKey(res.body.video_id)));
    const served = await t.http.get(new URL(res.body.video_url).pathname).set('X-Api-Key', key);
    expect(served.status).toBe(410);
    expect(served.body.error.code).toBe('gone');
  });

  it('legacy /api/upload behaves the same', async () => {
    const res = await t.http.post('/api/upload').set('X-Api-Key', key).attach('file', CLIP);
    expect(res.status).toBe(200);
    expect(res.body.video_url).toContain('/v1/uploads/vid_');
  });

  it('refuses bytes that are not a video with 415, whatever the declared type', async () => {
    const res = await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', Buffer.from('just some text, not a video at all '.repeat(10)), { filename: 'x.mp4', contentType: 'video/mp4' });
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('unsupported_media_type');
  });

  it('refuses a file with a video signature that does not decode, leaving nothing behind', async () => {
    const fake = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), Buffer.alloc(4096, 7)]);
    const before = filesUnder(t.dataDir).length;
    const res = await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', fake, { filename: 'x.mp4', contentType: 'video/mp4' });
    expect(res.status).toBe(415);
    expect(filesUnder(t.dataDir).length).toBe(before);
  });

  it('requires the multipart field `file`', async () => {
    const res = await t.http.post('/v1/uploads').set('X-Api-Key', key).field('other', 'value');
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].field).toBe('file');
  });

  it("names `file` in the details of the multipart parser's refusals: a file under another name, two files, no boundary (they came without details)", async () => {
    const refusals = [
      await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('video', CLIP),
      await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', CLIP).attach('file', CLIP),
      await t.http.post('/api/upload').set('X-Api-Key', key).set('Content-Type', 'multipart/form-data').send('not a multipart body'),
    ];
    for (const res of refusals) {
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', details: [{ field: 'file', message: res.body.error.message }] });
    }
  });

  it('takes 20 form fields beside the file, and refuses a 21st with 400', async () => {
    const withFields = (count: number) => {
      const req = t.http.post('/v1/uploads').set('X-Api-Key', key);
      for (let i = 0; i < count; i += 1) req.field(`field${i}`, 'value');
      return req.attach('file', CLIP);
    };
    expect((await withFields(20)).status).toBe(200);
    const refused = await withFields(21);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('invalid_request');
  });

  it('takes a text field of 8192 bytes beside the file, and refuses one of 8193 with 400 (each was held in memory up to 1 MB)', async () => {
    const withField = (bytes: number) => t.http.post('/v1/uploads').set('X-Api-Key', key).field('note', 'x'.repeat(bytes)).attach('file', CLIP);
    expect((await withField(8192)).status).toBe(200);
    const refused = await withField(8193);
    expect([refused.status, refused.body.error?.code]).toEqual([400, 'invalid_request']);
  });

  it('needs a key', async () => {
    expect((await t.http.post('/v1/uploads').attach('file', Buffer.from('tiny'), 'tiny.mp4')).status).toBe(401);
  });

  it('refuses a 501 MB stream with 413 while streaming and leaves no file behind', async () => {
    const res = await streamUpload(t.baseUrl, key, 501 * 1024 * 1024);
    expect(res.status).toBe(413);
    expect(res.body.error?.code).toBe('file_too_large');
    expect(filesUnder(path.join(t.dataDir, 'storage')).filter((name) => name.includes('partial'))).toEqual([]);
    const uploads = filesUnder(path.join(t.dataDir, 'storage', 'uploads'));
    expect(uploads.every((name) => statSync(path.join(t.dataDir, 'storage', 'uploads', name)).size < 500 * 1024 * 1024)).toBe(true);
  }, 120000);
});

describe('upload size limit at its boundary', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp({ MAX_UPLOAD_BYTES: String(CLIP_BYTES) });
    key = await t.createKey();
  });
  afterAll(() => t.close());

  it('accepts a file of exactly the limit and refuses one byte more', async () => {
    const exact = await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', CLIP);
    expect(exact.status).toBe(200);
    const before = filesUnder(path.join(t.dataDir, 'storage')).length;
    const over = await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', Buffer.concat([readFileSync(CLIP), Buffer.from([0])]), { filename: 'over.mp4' });
    expect(over.status).toBe(413);
    expect(over.body.error.code).toBe('file_too_large');
    expect(filesUnder(path.join(t.dataDir, 'storage')).length).toBe(before);
  });
});
