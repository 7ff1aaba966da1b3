import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config/app-config';
import { S3ObjectStorage } from '../../src/modules/storage/adapters/s3/s3.object-storage';
import { uploadStorageKey } from '../../src/modules/uploads/domain/upload';
import { startS3Server, TestS3Server } from '../support/s3-server';
import { ADMIN_TOKEN, eventually, MEDIA_DIR, startTestApp, TestApp } from '../support/test-app';
import { bytesBody } from '../support/http-probes';

const CLIP = path.join(MEDIA_DIR, 'portrait-pan.mp4');

describe('the app on S3 storage (real HTTP, Postgres, queue, S3-compatible server; fake worker)', () => {
  let s3: TestS3Server;
  let t: TestApp;
  let bucket: S3ObjectStorage;
  let key: string;

  beforeAll(async () => {
    s3 = await startS3Server();
    t = await startTestApp(s3.env());
    bucket = new S3ObjectStorage(s3.storageConfig());
    key = await t.createKey();
  });
  afterAll(async () => {
    bucket?.onApplicationShutdown();
    await t?.close();
    await s3?.close();
  });

  it('reports S3 in /v1/admin/config and a reachable bucket in /health', async () => {
    expect((await t.http.get('/v1/admin/config').set('X-Admin-Token', ADMIN_TOKEN)).body.storage).toBe('s3');
    const health = await t.http.get('/health');
    expect(health.body.checks.storage_configured).toBe('ok');
  });

  it('stores an upload in the bucket, runs a job on it and serves the output through a presigned URL', async () => {
    const clip = readFileSync(CLIP);
    const upload = await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', CLIP);
    expect(upload.status).toBe(200);
    expect(await bucket.stat(uploadStorageKey(upload.body.video_id))).toMatchObject({ key: uploadStorageKey(upload.body.video_id), size: clip.length });
    const echoed = await t.http.get(`/v1/uploads/${upload.body.video_id}`).set('X-Api-Key', key).buffer(true).parse(bytesBody);
    expect((echoed.body as Buffer).equals(clip)).toBe(true);

    const created = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: upload.body.video_url });
    expect(created.status).toBe(200);
    const done = await eventually(async () => {
      const res = await t.http.get(`/v1/jobs/${created.body.id}`).set('X-Api-Key', key);
      return res.body.status === 'completed' ? res.body : undefined;
    });
    expect(done.output_url.startsWith(`${s3.endpoint}/${s3.bucket}/outputs/${created.body.id}.webm?`)).toBe(true);
    expect(new URL(done.output_url).searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);

    const output = await fetch(done.output_url);
    expect(output.status).toBe(200);
    expect(output.headers.get('content-type')).toBe('video/webm');
    expect(output.headers.get('content-disposition')).toBe(`attachment; filename="${created.body.id}.webm"`);
    // the fake worker's "output" is its input, copied through withLocalFile and putFile
    expect(Buffer.from(await output.arrayBuffer()).equals(clip)).toBe(true);
    expect(existsSync(path.join(t.dataDir, 'storage'))).toBe(false);
  });
});

describe('S3 configuration', () => {
  it('requires S3_BUCKET with STORAGE=s3', () => {
    expect(() => loadConfig({ STORAGE: 's3' })).toThrow(ConfigError);
    expect(() => loadConfig({ STORAGE: 's3' })).toThrow(/S3_BUCKET/);
  });

  it('wants both halves of a static credential', () => {
    expect(() => loadConfig({ STORAGE: 's3', S3_BUCKET: 'media', S3_ACCESS_KEY_ID: 'id' })).toThrow(/S3_SECRET_ACCESS_KEY/);
    expect(() => loadConfig({ STORAGE: 's3', S3_BUCKET: 'media', S3_SECRET_ACCESS_KEY: 'secret' })).toThrow(/S3_ACCESS_KEY_ID/);
  });

  it('defaults to us-east-1, the SDK credential chain, and path-style only with an endpoint', () => {
    expect(loadConfig({ STORAGE: 's3', S3_BUCKET: 'media' }).storage).toEqual({ kind: 's3', bucket: 'media', region: 'us-east-1', endpoint: undefined, forcePathStyle: false, credentials: undefined });
    const minio = loadConfig({ STORAGE: 's3', S3_BUCKET: 'media', S3_ENDPOINT: 'http://minio:9000', S3_ACCESS_KEY_ID: 'id', S3_SECRET_ACCESS_KEY: 'secret' }).storage;
    expect(minio).toMatchObject({ endpoint: 'http://minio:9000', forcePathStyle: true, credentials: { accessKeyId: 'id', secretAccessKey: 'secret' } });
    expect(loadConfig({ STORAGE: 's3', S3_BUCKET: 'media', S3_ENDPOINT: 'http://minio:9000', S3_FORCE_PATH_STYLE: 'false' }).storage).toMatchObject({ forcePathStyle: false });
  });

  it('refuses a signed-URL lifetime beyond what SigV4 presigning allows', () => {
    expect(() => loadConfig({ STORAGE: 's3', S3_BUCKET: 'media', SIGNED_URL_TTL_SECONDS: String(8 * 24 * 3600) })).toThrow(/SIGNED_URL_TTL_SECONDS/);
  });

  it('keeps local storage under DATA_DIR by default', () => {
    expect(loadConfig({ DATA_DIR: '/srv/backdrop' }).storage).toEqual({ kind: 'local', root: '/srv/backdrop/storage' });
  });
});
