/**
 * Scale-out end to end over real HTTP on loopback: the API (WORKER_GATEWAY=remote) hands a job to
 * the standalone worker server, which fetches the input through its signed URL, runs the REAL engine
 * (model `light`, 1 s preview of portrait-pan.mp4) in its process pool, PUTs the output through the
 * signed upload URL into the API's storage and calls back; the job completes and its output_url
 * downloads a real webm. The worker's own API key guards every route.
 */
import { execFileSync } from 'node:child_process';
import { readdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { ffmpegPath, ffprobePath } from '../../src/engine/media/binaries';
import { RunningWorker } from '../../src/worker/worker-app';
import { LoopbackWorker, startApiOnWorker, startLoopbackWorker } from '../support/loopback-worker';
import { eventually, MEDIA_DIR, TestApp } from '../support/test-app';
import { bytesBody } from '../support/http-probes';

const CLIP = path.join(MEDIA_DIR, 'portrait-pan.mp4');
const WORKER_KEY = 'e2e-worker-key-0123456789abcdef';

describe('remote worker end to end (API -> RemoteHttpWorkerGateway -> worker server -> real engine)', () => {
  let loopback: LoopbackWorker;
  let worker: RunningWorker;
  let dir: string;
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    loopback = await startLoopbackWorker(WORKER_KEY, { WORKER_CONCURRENCY: '1', WORKER_QUEUE_SIZE: '2' });
    ({ worker, dir } = loopback);
    t = await startApiOnWorker(worker.url, WORKER_KEY, { REDIS_URL: 'redis://127.0.0.1:6379', WORKER_REQUEST_TIMEOUT_MS: '5000', WORKER_JOB_TIMEOUT_SECONDS: '120' });
    key = await t.createKey(10_000);
  });

  afterAll(async () => {
    await t?.close();
    await loopback?.close();
  });

  it('processes a real job on the worker and serves its output', async () => {
    const upload = await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', CLIP);
    expect(upload.status).toBe(200);
    const started = Date.now();
    const created = await t.http
      .post('/v1/jobs')
      .set('X-Api-Key', key)
      .send({ video_url: upload.body.video_url, model: 'light', output_format: 'webm', preview_duration: 1 });
    expect(created.status).toBe(200);
    const progress: number[] = [];
    const job = await eventually(async () => {
      const res = await t.http.get(`/v1/jobs/${created.body.id}`).set('X-Api-Key', key);
      if (res.body.status === 'processing') progress.push(res.body.progress);
      return ['completed', 'failed'].includes(res.body.status) ? res.body : undefined;
    }, 100_000, 200);
    const elapsed = Date.now() - started;
    expect(job).toMatchObject({ status: 'completed', error: null, error_code: null });
    console.log(`remote worker e2e: job completed in ${elapsed} ms; progress seen ${JSON.stringify([...new Set(progress)])}`);

    const output = new URL(job.output_url);
    const download = await t.http.get(output.pathname + output.search).buffer(true).parse(bytesBody);
    expect(download.status).toBe(200);
    expect(download.headers['content-type']).toBe('video/webm');
    const file = path.join(dir, 'output.webm');
    await writeFile(file, download.body as Buffer);
    const probe = JSON.parse(execFileSync(ffprobePath(), ['-v', 'error', '-show_streams', '-show_format', '-of', 'json', file]).toString());
    expect(probe.format.format_name).toContain('webm');
    expect(probe.streams[0]).toMatchObject({ codec_name: 'vp9', width: 640, height: 360 });
    expect(Number(probe.format.duration)).toBeCloseTo(1, 0);

    expect(await readdir(loopback.workDir)).toEqual([]);
    const health = await t.http.get('/health');
    expect(health.body.checks.worker_configured).toBe('ok');
    expect((await worker.queue.health())).toEqual({ jobs: { completed: 1, failed: 0, inProgress: 0, inQueue: 0, retried: 0 }, workers: { idle: 1, running: 0 } });
  }, 120_000);

  it('cancels a job running on the worker: the engine is aborted and its temp files removed', async () => {
    // 8 loops of the clip (32 s): `light` finishes the 4 s clip in well under a second
    const longClip = path.join(dir, 'long.mp4');
    execFileSync(ffmpegPath(), ['-v', 'error', '-stream_loop', '7', '-i', CLIP, '-c', 'copy', '-y', longClip]);
    const upload = await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', longClip);
    const created = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: upload.body.video_url, model: 'light', output_format: 'webm' });
    expect(created.status).toBe(200);
    await eventually(async () => {
      const res = await t.http.get(`/v1/jobs/${created.body.id}`).set('X-Api-Key', key);
      return res.body.status === 'processing' && res.body.progress > 0 ? true : undefined;
    }, 60_000, 100);
    const canceledAt = Date.now();
    const cancel = await t.http.post(`/v1/jobs/${created.body.id}/cancel`).set('X-Api-Key', key);
    expect(cancel.status).toBe(200);
    await eventually(async () => ((await worker.queue.health()).workers.running === 0 ? true : undefined), 10_000, 50);
    const stoppedAfter = Date.now() - canceledAt;
    expect((await worker.queue.health()).jobs).toMatchObject({ completed: 1, inProgress: 0, inQueue: 0 });
    const job = (await t.http.get(`/v1/jobs/${created.body.id}`).set('X-Api-Key', key)).body;
    expect(job).toMatchObject({ status: 'failed', error_code: 'canceled', output_url: null });
    await eventually(async () => ((await readdir(loopback.workDir)).length === 0 ? true : undefined), 5000, 50);
    console.log(`remote worker e2e: canceled job stopped on the worker ${stoppedAfter} ms after the API's cancel`);
  }, 90_000);

  describe('the worker server', () => {
    const call = (pathname: string, init: RequestInit = {}): Promise<Response> => fetch(`${worker.url}${pathname}`, init);

    it.each([
      ['GET', '/health'],
      ['POST', '/run'],
      ['GET', '/status/anything'],
      ['POST', '/cancel/anything'],
    ])('answers 401 to %s %s without the API key, or with a wrong one', async (method, pathname) => {
      expect((await call(pathname, { method })).status).toBe(401);
      expect((await call(pathname, { method, headers: { authorization: `${WORKER_KEY}x` } })).status).toBe(401);
      expect((await call(pathname, { method, headers: { authorization: WORKER_KEY.slice(0, -1) } })).status).toBe(401);
    });

    it('answers /health in the RunPod shape with the key', async () => {
      const res = await call('/health', { headers: { authorization: WORKER_KEY } });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ jobs: { completed: 1, failed: 0, inProgress: 0, inQueue: 0, retried: 0 }, workers: { idle: 1, running: 0 } });
    });

    it('refuses a malformed /run with 400 and an unknown job with 404', async () => {
      const headers = { authorization: `Bearer ${WORKER_KEY}`, 'content-type': 'application/json' };
      const bad = await call('/run', { method: 'POST', headers, body: JSON.stringify({ input: { job_id: 'j', input_url: 'file:///etc/passwd' } }) });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toEqual({ error: 'input.input_url must be an http(s) URL' });
      expect((await call('/status/nope', { headers })).status).toBe(404);
    });
  });
});
