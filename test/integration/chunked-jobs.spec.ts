/**
 * @slow
 *
 * Long jobs in chunks, through the real API, queue (both backends), engine (the real `light` model)
 * and ffmpeg: a 4 s clip with a 1 s chunk length is cut into 4 chunks that two workers' engine
 * children process in parallel, then joined. The output must be the single run's: same frame count
 * and duration, audio in sync, no seam in the matte; the job charged once and announced once.
 */
import { existsSync, readdirSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { ffmpegPath } from '../../src/engine/media/binaries';
import { runToCompletion } from '../../src/engine/media/process';
import { EngineProcessPool } from '../../src/engine/runner/engine-process-pool';
import { audioOffsetSeconds, seamScores } from '../../src/engine/quality/seam-scores';
import { ObjectStorage } from '../../src/modules/storage/ports/object-storage';
import { LocalWorkerGateway } from '../../src/modules/worker-gateway/adapters/local.worker-gateway';
import { WorkerGateway } from '../../src/modules/worker-gateway/ports/worker-gateway';
import { ChunkWatchingGateway } from '../support/chunk-watching-gateway';
import { SHARED_MODEL_CACHE } from '../support/processes';
import { eventually, MEDIA_DIR, startTestApp, swap, TestApp } from '../support/test-app';
import { startWebhookReceiver, WebhookReceiver } from '../support/webhook-receiver';
import { probeStreams } from '../engine/support/media-tools';

const FPS = 25;
const SIZE = { width: 320, height: 180 };

/** The alpha of every frame at a small fixed size (VP9 alpha through libvpx; the truth's gray). */
async function mattes(file: string, vp9Alpha: boolean): Promise<Uint8Array[]> {
  const filter = vp9Alpha ? `alphaextract,scale=${SIZE.width}:${SIZE.height}` : `scale=${SIZE.width}:${SIZE.height},format=gray`;
  const { stdout } = await runToCompletion(ffmpegPath(), ['-v', 'error', ...(vp9Alpha ? ['-c:v', 'libvpx-vp9'] : []), '-i', file, '-vf', filter, '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1']);
  const frame = SIZE.width * SIZE.height;
  return Array.from({ length: stdout.length / frame }, (_, i) => stdout.subarray(i * frame, (i + 1) * frame));
}

describe.each([
  ['Redis', { REDIS_URL: 'redis://127.0.0.1:6379' }],
  ['Postgres', {}],
])('long jobs in chunks on the %s queue', (_backend, backendEnv: Record<string, string>) => {
  let t: TestApp;
  let key: string;
  let videoUrl: string;
  let pool: EngineProcessPool;
  let hooks: WebhookReceiver;
  const work = mkdtempSync(path.join(tmpdir(), 'chunked-'));
  const clip = path.join(work, 'portrait-noise.mp4');
  /** the noise from the clip's first picture on: what the output's audio must match */
  const noiseFromPicture = path.join(work, 'noise-from-picture.wav');
  const gateway = new ChunkWatchingGateway();

  beforeAll(async () => {
    // portrait-pan with a noise track: noise has one best alignment, so the audio offset is measurable.
    // The picture starts 0.3 s after the sound (as in an mp4 without an edit list): the output starts
    // with the picture and keeps the sound from there, in every chunk's join as in a single run.
    const noise = path.join(work, 'noise.wav');
    await runToCompletion(ffmpegPath(), ['-v', 'error', '-f', 'lavfi', '-i', 'anoisesrc=d=4.3:c=pink:a=0.5:r=48000', '-y', noise]);
    await runToCompletion(ffmpegPath(), ['-v', 'error', '-ss', '0.3', '-i', noise, '-y', noiseFromPicture]);
    await runToCompletion(ffmpegPath(), ['-v', 'error', '-itsoffset', '0.3', '-i', path.join(MEDIA_DIR, 'portrait-pan.mp4'), '-i', noise, '-map', '0:v', '-map', '1:a', '-c:v', 'copy', '-c:a', 'aac', '-shortest', '-y', clip]);
    hooks = await startWebhookReceiver();
    t = await startTestApp(
      // the polls of five jobs, 4 a second with one key, would reach the default 120 requests a minute on a slow machine
      { ...backendEnv, CHUNK_SECONDS: '1', CHUNK_PREROLL_SECONDS: '0.5', CHUNK_ATTEMPTS: '2', WORKER_CONCURRENCY: '2', OUTBOUND_ALLOW_LIST: '127.0.0.1', WEBHOOK_SWEEP_INTERVAL_MS: '500', RATE_LIMIT_PER_MINUTE: '100000' },
      { realWorkerGateway: true, adapters: [swap(WorkerGateway, gateway)] },
    );
    pool = new EngineProcessPool({ concurrency: 2, cacheDir: SHARED_MODEL_CACHE, workDir: work });
    gateway.inner = new LocalWorkerGateway(t.app.get(ObjectStorage), () => pool, SHARED_MODEL_CACHE);
    key = await t.createKey(1000);
    videoUrl = (await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', clip)).body.video_url;
  }, 120000);
  afterAll(async () => {
    await t.close();
    await pool.close();
    await hooks.close();
    rmSync(work, { recursive: true, force: true });
  });

  const storageRoot = () => (t.config.storage.kind === 'local' ? t.config.storage.root : '');
  const jobOf = async (id: string) => (await t.http.get(`/v1/jobs/${id}`).set('X-Api-Key', key)).body;
  const create = async (body: object) => {
    const res = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: videoUrl, model: 'light', output_format: 'webm', ...body });
    expect(res.status).toBe(200);
    return res.body.id as string;
  };
  const finished = (id: string) => eventually(async () => {
    const job = await jobOf(id);
    return job.status === 'completed' || job.status === 'failed' ? job : undefined;
  }, 120000, 250);
  const ledger = async (id: string) => {
    const db = new Client({ connectionString: t.config.databaseUrl });
    await db.connect();
    try {
      return (await db.query(`SELECT kind, amount FROM credit_ledger WHERE job_id = $1 ORDER BY kind`, [id])).rows as Array<{ kind: string; amount: number }>;
    } finally {
      await db.end();
    }
  };
  const chunksLeft = (id: string) => (existsSync(path.join(storageRoot(), 'chunks', id)) ? readdirSync(path.join(storageRoot(), 'chunks', id)) : []);

  it('cuts a long job into chunks and joins them into the single run\'s output: frames, duration, audio, seams; one charge, one webhook per event', async () => {
    const id = await create({ webhook_url: hooks.url });
    const job = await finished(id);
    expect(job).toMatchObject({ status: 'completed', progress: 100 });

    const segments = gateway.tasksOf(id).map((task) => task.segment);
    expect(segments).toHaveLength(4);
    expect(segments.map((segment) => segment?.startSeconds).sort()).toEqual([0, 1, 2, 3]);
    expect(gateway.tasksOf(id).every((task) => task.settings.outputFormat === 'webm')).toBe(true);

    const output = path.join(storageRoot(), 'outputs', `${id}.webm`);
    const { streams, format } = await probeStreams(output);
    expect(Number(streams.find((stream) => stream.codec_type === 'video')?.nb_read_frames)).toBe(100);
    expect(Number(format.duration)).toBeCloseTo(4, 2);
    expect(streams.some((stream) => stream.codec_type === 'audio')).toBe(true);
    expect(Math.abs(await audioOffsetSeconds(noiseFromPicture, output))).toBeLessThan(1 / FPS);

    const scores = seamScores(await mattes(output, true), await mattes(path.join(MEDIA_DIR, 'portrait-pan.alpha.mkv'), false), [1, 2, 3].map((second) => second * FPS));
    expect(scores.seamIou).toBeGreaterThanOrEqual(0.9 * scores.restIou);
    expect(scores.seamDtssd).toBeLessThanOrEqual(1.1 * scores.restDtssd);

    // reserved once for the whole job, settled once: one charge of what the job cost
    const rows = await ledger(id);
    expect(rows.map((row) => row.kind)).toEqual(['charge', 'release', 'reserve']);
    expect(Number(rows[0].amount)).toBe(-job.credits_charged);
    expect(job.credits_charged).toBeGreaterThan(0);
    const announced = (await hooks.deliveriesOnceCome(id, 'job.completed')).map((event) => event.event).sort();
    expect(announced).toEqual([...new Set(announced)]);
    expect(announced).toContain('job.completed');
    expect(chunksLeft(id)).toEqual([]);
  }, 180000);

  it('keeps a short job (a preview within the chunk length) on the single-task path', async () => {
    const id = await create({ preview_duration: 1 });
    expect(await finished(id)).toMatchObject({ status: 'completed' });
    expect(gateway.tasksOf(id).map((task) => task.segment)).toEqual([undefined]);
  }, 120000);

  it('retries a failed chunk alone', async () => {
    gateway.failFirstAttemptOf(2);
    const id = await create({});
    expect(await finished(id)).toMatchObject({ status: 'completed' });
    const runs = gateway.tasksOf(id).map((task) => gateway.chunkIndexOf(task)).sort();
    expect(runs).toEqual([0, 1, 2, 2, 3]);
    const { streams } = await probeStreams(path.join(storageRoot(), 'outputs', `${id}.webm`));
    expect(Number(streams.find((stream) => stream.codec_type === 'video')?.nb_read_frames)).toBe(100);
    expect((await ledger(id)).filter((row) => row.kind === 'charge')).toHaveLength(1);
  }, 180000);

  it('a chunk that keeps failing fails the job once, after its attempts; nothing is charged', async () => {
    gateway.failEveryAttemptOf(1);
    try {
      const id = await create({ webhook_url: hooks.url });
      expect(await finished(id)).toMatchObject({ status: 'failed', error_code: 'worker_failed' });
      expect(gateway.tasksOf(id).filter((task) => gateway.chunkIndexOf(task) === 1)).toHaveLength(2);
      expect((await ledger(id)).map((row) => row.kind).sort()).toEqual(['release', 'reserve']);
      expect((await hooks.deliveriesOnceCome(id, 'job.failed')).filter((event) => event.event === 'job.failed')).toHaveLength(1);
      await eventually(async () => (chunksLeft(id).length === 0 ? true : undefined), 15000, 200);
    } finally {
      gateway.failEveryAttemptOf(null);
    }
  }, 120000);

  it('cancel stops every chunk: running ones are aborted, waiting ones never start; nothing is charged', async () => {
    gateway.holdChunks(true);
    try {
      const id = await create({});
      await eventually(async () => (gateway.tasksOf(id).length === 2 ? true : undefined), 60000, 100);
      expect((await t.http.post(`/v1/jobs/${id}/cancel`).set('X-Api-Key', key)).status).toBe(200);
      await eventually(async () => (gateway.aborted.filter((task) => task.jobId === id).length === 2 ? true : undefined), 15000, 100);
      await new Promise((resolve) => setTimeout(resolve, 3000)); // the other chunks are taken and find the job ended
      expect(gateway.tasksOf(id)).toHaveLength(2);
      expect(await jobOf(id)).toMatchObject({ status: 'failed', error_code: 'canceled' });
      expect((await ledger(id)).map((row) => row.kind)).not.toContain('charge');
      expect(existsSync(path.join(storageRoot(), 'outputs', `${id}.webm`))).toBe(false);
      await eventually(async () => (chunksLeft(id).length === 0 ? true : undefined), 15000, 200);
    } finally {
      gateway.holdChunks(false);
    }
  }, 120000);
});
