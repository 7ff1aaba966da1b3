import * as http from 'node:http';
import { Readable } from 'node:stream';
import { ObjectStorage } from '../../src/modules/storage/ports/object-storage';
import { bytesBody, openFilesUnder } from '../support/http-probes';
import { eventually, startTestApp, TestApp } from '../support/test-app';

/** far more than the socket's buffers hold, so the download is still being sent when its client goes */
const OBJECT_BYTES = 64 * 1024 * 1024;

/** GETs `url`, takes the first chunk of the body, and drops the connection; `onFirstChunk`'s answer is returned */
function abortAfterFirstChunk<T>(url: string, onFirstChunk: (status: number) => T): Promise<T> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, (res) => {
      res.once('data', () => {
        const seen = onFirstChunk(res.statusCode ?? 0);
        req.destroy();
        resolve(seen);
      });
    });
    req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
  });
}

describe('downloads (real HTTP, local storage)', () => {
  let t: TestApp;
  let storage: ObjectStorage;

  beforeAll(async () => {
    t = await startTestApp();
    storage = t.app.get(ObjectStorage);
  });

  afterAll(async () => {
    await t.close();
  });

  it('closes the stored file when the client goes away mid-download', async () => {
    const key = 'outputs/aborted-download.webm';
    await storage.put(key, Readable.from((function* () {
      const chunk = Buffer.alloc(1024 * 1024);
      for (let sent = 0; sent < OBJECT_BYTES; sent += chunk.length) yield chunk;
    })()));
    const url = await storage.signedDownloadUrl(key, 300);

    const openOnObject = () => openFilesUnder(t.dataDir).filter((file) => file.endsWith('aborted-download.webm')).length;
    const during = await abortAfterFirstChunk(url, (status) => ({ status, open: openOnObject() }));
    expect(during).toEqual({ status: 200, open: 1 });

    // before: the read stream was piped and, unpiped by the closed response, kept its file open until garbage collection
    await eventually(async () => (openOnObject() === 0 ? true : undefined), 5000);
  });

  it('serves byte ranges: a span, a suffix; 416 for a range past its end (a finished download resumed), the whole object for a range it cannot read', async () => {
    const key = 'outputs/ranged.webm';
    const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
    await storage.put(key, Readable.from([bytes]));
    const url = new URL(await storage.signedDownloadUrl(key, 300));
    const get = (range: string) => t.http.get(url.pathname + url.search).set('Range', range).buffer(true).parse(bytesBody);

    const span = await get('bytes=10-19');
    expect(span.status).toBe(206);
    expect(span.headers['content-range']).toBe('bytes 10-19/1000');
    expect(span.headers['accept-ranges']).toBe('bytes');
    expect(span.body).toEqual(bytes.subarray(10, 20));

    const suffix = await get('bytes=-5');
    expect(suffix.status).toBe(206);
    expect(suffix.headers['content-range']).toBe('bytes 995-999/1000');
    expect(suffix.body).toEqual(bytes.subarray(995));

    for (const unsatisfiable of ['bytes=1000-', 'bytes=5000-6000', 'bytes=-0']) {
      const past = await get(unsatisfiable);
      expect(past.status).toBe(416);
      expect(past.headers['content-range']).toBe('bytes */1000');
      // the contract's envelope, as every other error (it was an empty body)
      expect(JSON.parse(past.body.toString())).toMatchObject({ success: false, error: { code: 'range_not_satisfiable', request_id: expect.stringMatching(/^req_/) } });
    }

    const overEnd = await get('bytes=990-5000');
    expect(overEnd.status).toBe(206);
    expect(overEnd.headers['content-range']).toBe('bytes 990-999/1000');

    for (const unread of ['bytes=20-10', 'bytes=0-1,5-6', 'items=0-1']) {
      const whole = await get(unread);
      expect(whole.status).toBe(200);
      expect(whole.body).toEqual(bytes);
    }
  });

  it('says its version (ETag, Last-Modified): a client whose copy is current gets 304, and a resumed download whose copy is older gets the whole file, not a part of the newer one (If-Range was ignored)', async () => {
    const key = 'outputs/versioned.webm';
    const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 253));
    await storage.put(key, Readable.from([bytes]));
    const url = new URL(await storage.signedDownloadUrl(key, 300));
    const get = (headers: Record<string, string>) => t.http.get(url.pathname + url.search).set(headers).buffer(true).parse(bytesBody);

    const first = await get({});
    const [etag, lastModified] = [first.headers.etag, first.headers['last-modified']];
    expect(etag).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    expect(new Date(lastModified).getTime()).toBeGreaterThan(Date.now() - 60_000);

    for (const current of [{ 'If-None-Match': etag }, { 'If-None-Match': `"other", ${etag}` }, { 'If-None-Match': '*' }, { 'If-Modified-Since': lastModified }] as Array<Record<string, string>>) {
      const unchanged = await get(current);
      expect([unchanged.status, unchanged.body.length, unchanged.headers.etag]).toEqual([304, 0, etag]);
    }
    expect((await get({ 'If-None-Match': '"other"', 'If-Modified-Since': lastModified })).status).toBe(200); // the tag decides where both are sent
    expect((await get({ 'If-Modified-Since': new Date(Date.parse(lastModified) - 10_000).toUTCString() })).status).toBe(200);

    const resumed = await get({ Range: 'bytes=900-', 'If-Range': etag });
    expect([resumed.status, resumed.body]).toEqual([206, bytes.subarray(900)]);
    expect((await get({ Range: 'bytes=900-', 'If-Range': lastModified })).status).toBe(206);
    for (const older of ['"0-0"', new Date(Date.parse(lastModified) - 10_000).toUTCString()]) {
      const whole = await get({ Range: 'bytes=900-', 'If-Range': older });
      expect([whole.status, whole.body]).toEqual([200, bytes]);
    }
  });
});
