import { readdirSync, readlinkSync } from 'node:fs';
import * as http from 'node:http';
import { Readable } from 'node:stream';
import { ObjectStorage } from '../../src/modules/storage/ports/object-storage';
import { eventually, startTestApp, TestApp } from '../support/test-app';

/** far more than the socket's buffers hold, so the download is still being sent when its client goes */
const OBJECT_BYTES = 64 * 1024 * 1024;

/** this process's open file descriptors on a path that contains `name` (the app runs in this process) */
function openDescriptorsOn(name: string): number {
  let count = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`).includes(name)) count++;
    } catch {
      // closed between the listing and the read
    }
  }
  return count;
}

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

    const during = await abortAfterFirstChunk(url, (status) => ({ status, open: openDescriptorsOn('aborted-download.webm') }));
    expect(during).toEqual({ status: 200, open: 1 });

    // before: the read stream was piped and, unpiped by the closed response, kept its file open until garbage collection
    await eventually(async () => (openDescriptorsOn('aborted-download.webm') === 0 ? true : undefined), 5000);
  });

  it('serves byte ranges: a span, a suffix, and the whole object for a range past its end', async () => {
    const key = 'outputs/ranged.webm';
    const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
    await storage.put(key, Readable.from([bytes]));
    const url = new URL(await storage.signedDownloadUrl(key, 300));
    const get = (range: string) => t.http.get(url.pathname + url.search).set('Range', range).buffer(true).parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });

    const span = await get('bytes=10-19');
    expect(span.status).toBe(206);
    expect(span.headers['content-range']).toBe('bytes 10-19/1000');
    expect(span.headers['accept-ranges']).toBe('bytes');
    expect(span.body).toEqual(bytes.subarray(10, 20));

    const suffix = await get('bytes=-5');
    expect(suffix.status).toBe(206);
    expect(suffix.headers['content-range']).toBe('bytes 995-999/1000');
    expect(suffix.body).toEqual(bytes.subarray(995));

    const past = await get('bytes=1000-');
    expect(past.status).toBe(200);
    expect(past.body).toEqual(bytes);
  });
});
