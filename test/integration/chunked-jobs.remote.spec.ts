/**
 * A long job's chunks on remote workers: the API (WORKER_GATEWAY=remote) hands each chunk to a
 * RunPod-protocol worker server over loopback HTTP (its `segment` in the run request); the worker
 * runs the real engine on that range and PUTs the chunk back; the API's worker joins them.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { startWorker, RunningWorker } from '../../src/worker/worker-app';
import { loadWorkerServerConfig } from '../../src/config/worker-server-config';
import { probeStreams } from '../engine/support/media-tools';
import { SHARED_MODEL_CACHE } from '../support/processes';
import { eventually, MEDIA_DIR, startTestApp, TestApp } from '../support/test-app';

const WORKER_KEY = 'chunks-worker-key-0123456789abcdef';

describe('long jobs in chunks on RunPod-protocol workers', () => {
  let dir: string;
  let worker: RunningWorker;
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'chunked-remote-'));
    await mkdir(path.join(dir, 'work'));
    worker = await startWorker(
      loadWorkerServerConfig({
        WORKER_API_KEY: WORKER_KEY,
        WORKER_HOST: '127.0.0.1',
        WORKER_PORT: '0',
        WORKER_CONCURRENCY: '2',
        WORKER_QUEUE_SIZE: '8',
        WORKER_RESULT_TTL_SECONDS: '60',
        MODEL_CACHE_DIR: SHARED_MODEL_CACHE,
        WORKER_WORK_DIR: path.join(dir, 'work'),
        WORKER_TRANSFER_TIMEOUT_MS: '10000',
      }),
    );
    t = await startTestApp(
      {
        WORKER_GATEWAY: 'remote',
        WORKER_URLS: worker.url,
        WORKER_API_KEY: WORKER_KEY,
        WORKER_POLL_INTERVAL_MS: '250',
        WORKER_CONCURRENCY: '2',
        CHUNK_SECONDS: '1.5',
        CHUNK_PREROLL_SECONDS: '0.5',
        RATE_LIMIT_PER_MINUTE: '100000',
      },
      { realWorkerGateway: true },
    );
    key = await t.createKey(10_000);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await worker?.close();
    await rm(dir, { recursive: true, force: true });
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
    expect((await worker.queue.health()).jobs).toMatchObject({ completed: 3, failed: 0 });

    const output = new URL(job.output_url);
    const download = await fetch(`${t.baseUrl}${output.pathname}${output.search}`);
    const file = path.join(dir, 'output.mp4');
    await writeFile(file, Buffer.from(await download.arrayBuffer()));
    const { streams, format } = await probeStreams(file);
    expect(Number(streams.find((stream) => stream.codec_type === 'video')?.nb_read_frames)).toBe(100);
    expect(Number(format.duration)).toBeCloseTo(4, 2);
  }, 120_000);
});
