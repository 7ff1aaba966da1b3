import { Readable } from 'node:stream';
import { S3ObjectStorage } from '../../src/modules/storage/adapters/s3/s3.object-storage';
import { startS3Server, TestS3Server } from '../support/s3-server';

/** S3's presigned download URLs, handed out again while most of their life is left (signing costs more CPU than a status poll). */
describe('S3 presigned download URLs', () => {
  let server: TestS3Server;
  let now = Date.now();
  let storage: S3ObjectStorage;

  beforeAll(async () => {
    server = await startS3Server();
    storage = new S3ObjectStorage(server.storageConfig(), () => now);
    for (const key of ['outputs/job_a.webm', 'outputs/job_b.webm']) await storage.put(key, Readable.from([Buffer.from(key)]));
  });
  afterAll(async () => {
    storage.onApplicationShutdown();
    await server.close();
  });

  it('hands out the same URL while 90% of its life is left, then a new one; each names its key and download name', async () => {
    const ttl = 1000;
    const first = await storage.signedDownloadUrl('outputs/job_a.webm', ttl, 'a.webm');
    expect((await fetch(first)).status).toBe(200);
    now += ttl * 100 - 1;
    expect(await storage.signedDownloadUrl('outputs/job_a.webm', ttl, 'a.webm')).toBe(first);
    now += 2;
    const renewed = await storage.signedDownloadUrl('outputs/job_a.webm', ttl, 'a.webm');
    expect(renewed).not.toBe(first);
    const others = [await storage.signedDownloadUrl('outputs/job_b.webm', ttl, 'a.webm'), await storage.signedDownloadUrl('outputs/job_a.webm', ttl, 'b.webm'), await storage.signedDownloadUrl('outputs/job_a.webm', ttl * 2, 'a.webm')];
    expect(new Set([renewed, ...others]).size).toBe(4);
    expect(await (await fetch(others[0])).text()).toBe('outputs/job_b.webm');
  });
});
