import { Readable } from 'node:stream';
import { ObjectNotFoundError } from '../../../src/modules/storage/ports/object-storage';
import { InMemoryApp, startInMemoryApp } from '../../support/in-memory-app';

describe('a signed download whose file goes between its lookup and its read (retention sweeping it)', () => {
  let t: InMemoryApp;
  beforeAll(async () => {
    t = await startInMemoryApp();
  });
  afterAll(() => t.close());

  it.each([
    ['whole', {}],
    ['a range', { range: 'bytes=0-3' }],
  ])('answers 410 gone as JSON, without the video\'s headers (%s): a browser saved the error as the video', async (_case, headers: Record<string, string>) => {
    const { storage } = t.adapters;
    await storage.put('outputs/job_swept.webm', Readable.from([Buffer.from('video bytes')]));
    const url = new URL(await storage.signedDownloadUrl('outputs/job_swept.webm', 60, 'job_swept.webm'));
    jest.spyOn(storage, 'openRead').mockRejectedValueOnce(new ObjectNotFoundError('outputs/job_swept.webm'));
    const res = await t.http.get(url.pathname + url.search).set(headers);
    expect(res.status).toBe(410);
    expect(res.body).toMatchObject({ error: { code: 'gone' } });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    for (const header of ['content-disposition', 'content-range', 'cache-control']) expect(res.headers[header]).toBeUndefined();
  });
});
