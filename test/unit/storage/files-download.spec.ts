import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { ObjectNotFoundError } from '../../../src/modules/storage/ports/object-storage';
import { InMemoryVideoProbe } from '../../../src/modules/uploads/adapters/in-memory/in-memory.video-probe';
import { VideoProbe } from '../../../src/modules/uploads/ports/video-probe';
import { InMemoryApp, startInMemoryApp } from '../../support/in-memory-app';
import { MEDIA_DIR, swap } from '../../support/test-app';

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

describe('HEAD on a download (Express answers it with the GET route)', () => {
  const clip = readFileSync(path.join(MEDIA_DIR, 'portrait-pan.mp4'));
  let t: InMemoryApp;
  beforeAll(async () => {
    t = await startInMemoryApp({}, { adapters: [swap(VideoProbe, new InMemoryVideoProbe().knowVideo(clip, { durationSeconds: 8, width: 640, height: 360 }))] });
  });
  afterAll(() => t.close());

  it("answers a signed file's headers without reading it (the file was read whole and dropped), and 410 once it is gone", async () => {
    const { storage } = t.adapters;
    await storage.put('outputs/job_head.webm', Readable.from([Buffer.from('video bytes')]));
    const url = new URL(await storage.signedDownloadUrl('outputs/job_head.webm', 60, 'job_head.webm'));
    const reads = jest.spyOn(storage, 'openRead');
    const res = await t.http.head(url.pathname + url.search);
    expect([res.status, res.headers['content-length'], res.headers['accept-ranges']]).toEqual([200, '11', 'bytes']);
    expect(reads).not.toHaveBeenCalled();
    await storage.delete('outputs/job_head.webm');
    expect((await t.http.head(url.pathname + url.search)).status).toBe(410);
    expect((await t.http.get(url.pathname + url.search)).status).toBe(410);
  });

  it("answers an upload's headers to its owner without reading it", async () => {
    const key = await t.createKey();
    const uploaded = await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', clip, 'clip.mp4');
    const reads = jest.spyOn(t.adapters.storage, 'openRead');
    const res = await t.http.head(`/v1/uploads/${uploaded.body.video_id}`).set('X-Api-Key', key);
    expect([res.status, res.headers['content-length']]).toEqual([200, String(uploaded.body.size)]);
    expect(reads).not.toHaveBeenCalled();
    expect((await t.http.get(`/v1/uploads/${uploaded.body.video_id}`).set('X-Api-Key', key)).status).toBe(200);
    expect(reads).toHaveBeenCalledTimes(1);
  });
});
