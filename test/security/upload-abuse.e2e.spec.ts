import { readdirSync, readFileSync } from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { openFilesUnder } from '../support/http-probes';
import { eventually, MEDIA_DIR, startTestApp, TestApp } from '../support/test-app';

const CLIP = readFileSync(path.join(MEDIA_DIR, 'portrait-pan.mp4'));
const BOUNDARY = 'backdrop-abuse-boundary';
const HEAD = (filename: string, type: string) =>
  Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`);
const TAIL = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);

/** A young-generation collection on demand (Jest runs without --expose-gc): the spent chunks of a stream die young. */
function youngCollection(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options: { type: 'minor' }) => void;
  return () => gc({ type: 'minor' });
}

/** Every file under a directory, recursively. */
function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? filesUnder(path.join(dir, entry.name)) : [path.join(dir, entry.name)]));
  } catch {
    return [];
  }
}

describe('upload abuse', () => {
  let t: TestApp;
  let key: string;
  let storageDir: string;
  const collect = youngCollection();

  beforeAll(async () => {
    t = await startTestApp();
    key = await t.createKey();
    storageDir = path.join(t.dataDir, 'storage');
  });
  afterAll(() => t.close());

  /** A raw multipart upload the test controls byte by byte. */
  function rawUpload(declaredLength: number): { req: http.ClientRequest; answer: Promise<{ status: number; body: string } | null> } {
    const url = new URL('/v1/uploads', t.baseUrl);
    const req = http.request(url, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': String(declaredLength) },
    });
    const answer = new Promise<{ status: number; body: string } | null>((resolve) => {
      req.on('response', (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', () => resolve(null));
    });
    return { req, answer };
  }

  it.each([
    ['after storage started writing the file', CLIP.subarray(0, 256 * 1024), true],
    ['before the type could be decided (a few bytes)', CLIP.subarray(0, 10), false],
  ])('a client that aborts %s leaves no partial file and no open handle', async (_when, sent, waitForPartial) => {
    const { req } = rawUpload(50 * 1024 * 1024);
    req.write(HEAD('clip.mp4', 'video/mp4'));
    req.write(sent);
    if (waitForPartial) await eventually(async () => (filesUnder(storageDir).some((file) => file.endsWith('.partial')) ? true : undefined), 10_000, 20);
    else await new Promise((resolve) => setTimeout(resolve, 200));
    req.destroy();
    await eventually(async () => (filesUnder(storageDir).length === 0 && openFilesUnder(t.dataDir).length === 0 ? true : undefined), 10_000, 50);
    expect(filesUnder(storageDir)).toEqual([]);
    expect(openFilesUnder(t.dataDir)).toEqual([]);
    // The server is still fine afterwards.
    expect((await t.http.get('/v1/jobs').set('X-Api-Key', key)).status).toBe(200);
  });

  it.each([
    ['text claiming to be video/mp4', Buffer.from('#!/bin/sh\necho this is not a video\n'.repeat(100)), 'video.mp4', 'video/mp4'],
    ['a PNG named .mp4', readFileSync(path.join(MEDIA_DIR, 'astronaut.png')), 'video.mp4', 'video/mp4'],
    ['an HTML page named .webm', Buffer.from('<html><script>alert(1)</script></html>'.repeat(50)), 'x.webm', 'video/webm'],
  ])('a body that lies about its type (%s) is 415 in the envelope and leaves nothing behind', async (_name, bytes, filename, type) => {
    const res = await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', bytes, { filename, contentType: type });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ success: false, error: { code: 'unsupported_media_type', message: expect.any(String), request_id: res.headers['x-request-id'] } });
    await eventually(async () => (filesUnder(storageDir).length === 0 ? true : undefined), 5000, 50);
  });

  /**
   * Streams an upload of `fileBytes` (the clip, then filler) and samples this process's RSS every
   * 50 ms meanwhile, each time after a young-generation collection: the peak is what the upload holds, not the
   * garbage V8 lets pile up before collecting it. In a Jest worker that had run the model specs
   * (gigabytes of onnxruntime memory), V8 let 134-156 MB of spent socket chunks pile up first, with
   * nothing held (34 MB in a fresh worker).
   */
  async function streamedUpload(fileBytes: number): Promise<{ status: number | undefined; peak: number; seconds: number }> {
    const filler = Buffer.alloc(1024 * 1024, 0x41);
    let remaining = fileBytes - CLIP.length;
    const body = Readable.from(
      (function* () {
        yield HEAD('large.mp4', 'video/mp4');
        yield CLIP;
        while (remaining > 0) {
          const size = Math.min(remaining, filler.length);
          remaining -= size;
          yield size === filler.length ? filler : filler.subarray(0, size);
        }
        yield TAIL;
      })(),
      { objectMode: false },
    );
    const total = HEAD('large.mp4', 'video/mp4').length + fileBytes + TAIL.length;
    let peak = process.memoryUsage().rss;
    const sampler = setInterval(() => {
      collect();
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 50);
    const started = Date.now();
    const { req, answer } = rawUpload(total);
    body.pipe(req);
    const result = await answer;
    clearInterval(sampler);
    return { status: result?.status, peak, seconds: (Date.now() - started) / 1000 };
  }

  it('memory stays flat while a 500 MB upload streams through (RSS sampled during the upload)', async () => {
    // a first, smaller upload brings the allocator to its working size; the baseline follows it
    await streamedUpload(64 * 1024 * 1024);
    collect();
    const baseline = process.memoryUsage().rss;
    const fileBytes = t.config.maxUploadBytes; // exactly the limit: the largest upload accepted
    const { status, peak, seconds } = await streamedUpload(fileBytes);
    const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
    process.stdout.write(
      `[upload-memory] ${mb(fileBytes)} MB upload in ${seconds.toFixed(1)} s: RSS baseline ${mb(baseline)} MB, peak ${mb(peak)} MB, growth ${mb(peak - baseline)} MB (server and client in this process); answer ${status}\n`,
    );
    // The clip's moov box is followed by 490 MB of filler, so ffprobe may or may not accept it; either way it streamed to disk.
    expect([200, 415]).toContain(status);
    // An upload held in memory would grow RSS by its whole size (500 MB); half of it leaves room for the
    // spent chunks V8 piles up in a worker that ran the model specs (134-156 MB, above; 153 MB once in CI).
    expect(peak - baseline).toBeLessThan(fileBytes / 2);
  });
});
