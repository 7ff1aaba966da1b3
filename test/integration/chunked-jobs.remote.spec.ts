/**
 * A long job's chunks on remote workers: the API (WORKER_GATEWAY=remote) hands each chunk to a
 * RunPod-protocol worker server over loopback HTTP (its `segment` in the run request); the worker
 * runs the real engine on that range and PUTs the chunk back; the API's worker joins them.
 */
import { writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { probeStreams } from '../engine/support/media-tools';
import { LoopbackWorker, startApiOnWorker, startLoopbackWorker } from '../support/loopback-worker';
import { eventually, MEDIA_DIR, TestApp } from '../support/test-app';

const WORKER_KEY = 'chunks-worker-key-0123456789abcdef';

describe('long jobs in chunks on RunPod-protocol workers', () => {
  let loopback: LoopbackWorker;
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    loopback = await startLoopbackWorker(WORKER_KEY, { WORKER_CONCURRENCY: '2', WORKER_QUEUE_SIZE: '8' });
    t = await startApiOnWorker(loopback.worker.url, WORKER_KEY, { WORKER_CONCURRENCY: '2', CHUNK_SECONDS: '1.5', CHUNK_PREROLL_SECONDS: '0.5' });
    key = await t.createKey(10_000);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await loopback?.close();
  });

  it('runs every chunk on the worker server and joins them into the whole clip', async () => {
    const upload = await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', path.join(MEDIA_DIR, 'portrait-pan.mp4'));
    const created = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: upload.body.video_url, model: 'light', output_format: 'mp4', bg_type: 'green' });
    expect(created.status).toBe(200);
    const job = await eventually(async () => {
      const res = await t.http.get(`/v1/jobs/${created.body.id}`).set('X-Api-Key', key);
      return ['completed', 'failed'].includes(res.body.status) ? res.body : undefined;
    }, 100_000, 200);
    expect(job).toMatchObject({ status: 'completed', duration_seconds: 4 });
    expect((await loopback.worker.queue.health()).jobs).toMatchObject({ completed: 3, failed: 0 });

    const output = new URL(job.output_url);
    const download = await fetch(`${t.baseUrl}${output.pathname}${output.search}`);
    const file = path.join(loopback.dir, 'output.mp4');
    await writeFile(file, Buffer.from(await download.arrayBuffer()));
    const { streams, format } = await probeStreams(file);
    expect(Number(streams.find((stream) => stream.codec_type === 'video')?.nb_read_frames)).toBe(100);
    expect(Number(format.duration)).toBeCloseTo(4, 2);
  }, 120_000);
});
