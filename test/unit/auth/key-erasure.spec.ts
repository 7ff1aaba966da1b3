import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fingerprintOf, hashApiKey } from '../../../src/common/api-key-format';
import { InMemoryOutboundHttp } from '../../../src/common/in-memory.outbound-http';
import { OutboundHttp } from '../../../src/common/outbound-http';
import { InMemoryVideoProbe } from '../../../src/modules/uploads/adapters/in-memory/in-memory.video-probe';
import { VideoProbe } from '../../../src/modules/uploads/ports/video-probe';
import { InMemoryApp, startInMemoryApp } from '../../support/in-memory-app';
import { ADMIN_TOKEN, eventually, MEDIA_DIR, swap } from '../../support/test-app';

describe("POST /v1/admin/keys/erase: a key's data erased", () => {
  const clip = readFileSync(path.join(MEDIA_DIR, 'portrait-pan.mp4'));
  const internet = new InMemoryOutboundHttp().serve('https://videos.example.com/clip.mp4', clip);
  const probe = new InMemoryVideoProbe().knowVideo(clip, { durationSeconds: 8, width: 640, height: 360 });
  let t: InMemoryApp;

  beforeEach(async () => {
    t = await startInMemoryApp({}, { adapters: [swap(OutboundHttp, internet), swap(VideoProbe, probe)] });
  });
  afterEach(async () => {
    t.fake.release();
    await t.close();
  });

  const keyFingerprint = (key: string): string => fingerprintOf(hashApiKey(key));
  const erase = (fingerprint: string) => t.http.post('/v1/admin/keys/erase').set('X-Admin-Token', ADMIN_TOKEN).send({ key_fingerprint: fingerprint });
  const statusOf = async (key: string, id: string) => (await t.http.get(`/v1/jobs/${id}`).set('X-Api-Key', key)).body.status;

  /** a key with an upload, a completed job on it with a webhook and an Idempotency-Key, and a job still processing */
  async function aClientWithData(credits = 1000) {
    const key = await t.createKey(credits);
    t.fake.succeedWith(4);
    const upload = await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', clip, 'holiday-in-rome.mp4');
    const done = await t.http
      .post('/v1/jobs')
      .set('X-Api-Key', key)
      .set('Idempotency-Key', 'order-1')
      .send({ video_url: upload.body.video_url, model: 'light', webhook_url: 'https://hooks.example.com/in', metadata: { customer: 'Ada Lovelace' } });
    await eventually(async () => ((await statusOf(key, done.body.id)) === 'completed' ? true : undefined));
    t.fake.hold();
    const running = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: 'https://videos.example.com/clip.mp4', model: 'human', webhook_url: 'https://hooks.example.com/running' });
    // held once the worker has it (a job is processing a moment before its worker is handed it)
    await eventually(async () => (t.fake.tasks.some((task) => task.jobId === running.body.id) ? true : undefined));
    return { key, uploadId: upload.body.video_id as string, done: done.body.id as string, running: running.body.id as string };
  }

  it('ends its work, deletes its files and erases what its client put in, keeping what was done and what it cost', async () => {
    const client = await aClientWithData();
    const other = await aClientWithData();
    const fingerprint = keyFingerprint(client.key);
    const output = (await t.adapters.jobs.findById(client.done))?.outputKey;
    const storedUpload = (await t.adapters.uploads.findOwned(client.uploadId, (await t.adapters.jobs.findById(client.done))!.apiKeyId))?.storageKey;
    expect(output && storedUpload && (await t.adapters.storage.stat(output)) && (await t.adapters.storage.stat(storedUpload))).toBeTruthy();

    const announcedBefore = t.adapters.deliveries.enqueued.length;
    const res = await erase(fingerprint);
    expect(res.status).toBe(200);
    // the upload, the output, and the input (and background) the running job fetched
    expect(await t.adapters.storage.stat(`inputs/${client.running}`)).toBeNull();
    expect(res.body).toMatchObject({ success: true, key_fingerprint: fingerprint, enabled: false, erased: { jobs_ended: 1, jobs: 2, uploads: 1, files: 4 } });

    // the key is refused; its files are gone, another key's stay
    expect((await t.http.get('/v1/jobs').set('X-Api-Key', client.key)).status).toBe(401);
    expect([await t.adapters.storage.stat(output!), await t.adapters.storage.stat(storedUpload!)]).toEqual([null, null]);
    const othersOutput = (await t.adapters.jobs.findById(other.done))?.outputKey;
    expect(await t.adapters.storage.stat(othersOutput!)).not.toBeNull();

    // the running job ended as canceled, its reserve released: the balance is what the completed job left
    const running = await t.adapters.jobs.findById(client.running);
    expect(running).toMatchObject({ status: 'failed', errorCode: 'canceled', billingStatus: 'refunded' });
    const charged = (await t.adapters.jobs.findById(client.done))?.chargedCredits ?? 0;
    expect(charged).toBeGreaterThan(0);
    expect(await t.adapters.ledger.balance(running!.apiKeyId)).toBe(1000 - charged);

    // what the client put in is gone; what was done, when, and what it cost stay
    const done = await t.adapters.jobs.findById(client.done);
    expect(done).toMatchObject({ status: 'completed', videoUrl: '', webhookUrl: null, metadata: null, chargedCredits: expect.any(Number) });
    expect(done?.outputDeletedAt?.getTime()).toEqual(expect.any(Number));
    expect(JSON.stringify([done, running, await t.adapters.uploads.findOwned(client.uploadId, done!.apiKeyId)])).not.toMatch(/holiday|Lovelace|hooks\.example|videos\.example/);
    expect(t.adapters.outbox.all().filter((delivery) => delivery.apiKeyId === done!.apiKeyId)).toEqual([]);
    expect(t.adapters.outbox.all().some((delivery) => delivery.apiKeyId !== done!.apiKeyId)).toBe(true);
    expect(await t.adapters.idempotency.peek({ apiKeyId: done!.apiKeyId, key: 'order-1' }, 'any')).toEqual({ kind: 'free' });

    // the running job's end was announced to nobody: job.failed carried what the client asked to have erased
    expect(t.adapters.deliveries.enqueued.length).toBe(announcedBefore);

    // the other key's job, held like this one's, still runs
    expect(await statusOf(other.key, other.running)).toBe('processing');
  });

  it('can run again: nothing left to end, the same rows, and re-enabling the key finds none of its data', async () => {
    const client = await aClientWithData();
    const fingerprint = keyFingerprint(client.key);
    expect((await erase(fingerprint)).status).toBe(200);
    const again = await erase(fingerprint);
    expect(again.body).toMatchObject({ enabled: false, erased: { jobs_ended: 0, jobs: 2, uploads: 1 } });
    await t.http.post('/v1/admin/keys/enable').set('X-Admin-Token', ADMIN_TOKEN).send({ key_fingerprint: fingerprint });
    const upload = await t.http.get(`/v1/uploads/${client.uploadId}`).set('X-Api-Key', client.key);
    expect(upload.status).toBe(410);
    const job = await t.http.get(`/v1/jobs/${client.done}`).set('X-Api-Key', client.key);
    expect(job.body).toMatchObject({ status: 'completed', metadata: null });
    expect(JSON.stringify(job.body)).not.toMatch(/Lovelace|hooks\.example/);
  });

  it('an upload whose request authenticated before the disable, and stores its row after, is refused and leaves nothing', async () => {
    const key = await t.createKey(100);
    let probed!: () => void;
    const probing = new Promise<void>((resolve) => (probed = resolve));
    let finishProbe!: () => void;
    const held = new Promise<void>((resolve) => (finishProbe = resolve));
    const probe = t.app.get(VideoProbe);
    const realProbe = probe.probe.bind(probe);
    jest.spyOn(probe, 'probe').mockImplementationOnce(async (localPath) => {
      probed();
      await held;
      return realProbe(localPath);
    });
    const uploading = t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', clip, 'holiday-in-rome.mp4').then((res) => res);
    await probing;
    expect((await erase(keyFingerprint(key))).body.erased).toMatchObject({ uploads: 0, files: 0 });
    finishProbe();
    const refused = await uploading;
    expect([refused.status, refused.body.error?.code]).toEqual([401, 'invalid_api_key']);
    const stored: string[] = [];
    for await (const object of t.adapters.storage.list('uploads/')) stored.push(object.key);
    expect(stored).toEqual([]);
  });

  it('answers 404 for an unknown key and 403 without the admin token, erasing nothing', async () => {
    const client = await aClientWithData();
    const missing = await erase('0123456789ab');
    expect([missing.status, missing.body.error?.code]).toEqual([404, 'not_found']);
    const refused = await t.http.post('/v1/admin/keys/erase').send({ key_fingerprint: keyFingerprint(client.key) });
    expect([refused.status, refused.body.error?.code]).toEqual([403, 'forbidden']);
    expect((await t.http.get(`/v1/jobs/${client.done}`).set('X-Api-Key', client.key)).body.status).toBe('completed');
  });
});
