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

  it("signs anew each time with the SDK's credential chain (a role's session ends its URLs, whatever their expiry says)", async () => {
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    const { credentials } = server.storageConfig();
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: credentials!.accessKeyId, AWS_SECRET_ACCESS_KEY: credentials!.secretAccessKey });
    const chained = new S3ObjectStorage({ ...server.storageConfig(), credentials: undefined }, () => now);
    try {
      const first = await chained.signedDownloadUrl('outputs/job_a.webm', 1000);
      expect((await fetch(first)).status).toBe(200);
      now += 1000;
      expect(await chained.signedDownloadUrl('outputs/job_a.webm', 1000)).not.toBe(first);
    } finally {
      chained.onApplicationShutdown();
      for (const [name, value] of [['AWS_ACCESS_KEY_ID', saved.id], ['AWS_SECRET_ACCESS_KEY', saved.secret]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});
