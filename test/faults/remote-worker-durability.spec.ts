/**
 * The remote worker server with a durable queue (BullMQ on Redis) under faults, behind the real API
 * (WORKER_GATEWAY=remote): the worker server killed (-9, with its engine children) mid-job and
 * restarted, and a run that fails once and is retried through the protocol's /retry. Each case ends
 * with zero lost jobs and zero double charges, read from the API's database, and printed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { EngineProcessPool } from '../../src/engine/runner/engine-process-pool';
import { engineProcessor } from '../../src/worker/engine-processor';
import { JobFailure, JobProcessor } from '../../src/worker/job-queue';
import { WorkerServerConfig } from '../../src/config/worker-server-config';
import { killHard, Tally, waitForAll } from '../support/cluster';
import { ensureBuilt, freshEnv, randomPort, RunningProcess, SHARED_MODEL_CACHE, startProcess } from '../support/processes';
import { LoopbackWorker, startApiOnWorker, startLoopbackWorker } from '../support/loopback-worker';
import { eventually, MEDIA_DIR, TestApp } from '../support/test-app';

const CLIP = path.join(MEDIA_DIR, 'portrait-pan.mp4');
const WORKER_KEY = 'durable-worker-key-0123456789abcdef';
const REDIS_URL = 'redis://127.0.0.1:6379';

const report: Array<Tally & { name: string; runs: number }> = [];

function record(name: string, outcome: Tally, runs: number): void {
  report.push({ name, ...outcome, runs });
  expect({ lost: outcome.lost, doubleCharges: outcome.doubleCharges, doubleCompletions: outcome.doubleCompletions }).toEqual({ lost: 0, doubleCharges: 0, doubleCompletions: 0 });
}

afterAll(() => {
  const lines = report.map((r) => `  ${r.name.padEnd(48)} jobs=${r.jobs} completed=${r.completed} lost=${r.lost} charged_twice=${r.doubleCharges} double_completions=${r.doubleCompletions} worker_runs=${r.runs}`);
  console.log(`remote worker durability faults:\n${lines.join('\n')}`);
});

async function startApi(workerUrl: string): Promise<{ t: TestApp; key: string; videoUrl: string }> {
  const t = await startApiOnWorker(workerUrl, WORKER_KEY, {
    REDIS_URL,
    RATE_LIMIT_STARTS_PER_MINUTE: '1000',
    WORKER_REQUEST_TIMEOUT_MS: '2000',
    WORKER_RETRY_ATTEMPTS: '2',
    WORKER_RETRY_BASE_DELAY_MS: '100',
    WORKER_JOB_TIMEOUT_SECONDS: '240',
    WORKER_UNREACHABLE_GRACE_SECONDS: '90',
    WORKER_RUN_RETRIES: '1',
  });
  const key = await t.createKey(100_000);
  const upload = await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', CLIP);
  expect(upload.status).toBe(200);
  return { t, key, videoUrl: upload.body.video_url };
}

async function createJob(api: { t: TestApp; key: string; videoUrl: string }): Promise<string> {
  const created = await api.t.http.post('/v1/jobs').set('X-Api-Key', api.key).send({ video_url: api.videoUrl, model: 'light', output_format: 'webm', preview_duration: 2 });
  expect(created.status).toBe(200);
  return created.body.id as string;
}

async function workerHealth(url: string): Promise<{ jobs: { completed: number; failed: number; inProgress: number; retried: number } } | null> {
  const res = await fetch(`${url}/health`, { headers: { authorization: WORKER_KEY } }).catch(() => null);
  return res?.ok ? ((await res.json()) as { jobs: { completed: number; failed: number; inProgress: number; retried: number } }) : null;
}

describe('remote worker server with a durable queue: faults', () => {
  const namespace = () => `durable_${Math.random().toString(36).slice(2, 10)}`;

  it.each([
    ['kill -9', 'SIGKILL'],
    ['SIGTERM', 'SIGTERM'],
  ] as const)('%s of the worker server mid-job, then a restart: the job is run again and completes, charged once', async (label, signal) => {
    ensureBuilt();
    const port = randomPort();
    const workerUrl = `http://127.0.0.1:${port}`;
    const workDir = mkdtempSync(path.join(tmpdir(), 'backdrop-durable-worker-'));
    const env = freshEnv({
      WORKER_API_KEY: WORKER_KEY,
      WORKER_HOST: '127.0.0.1',
      WORKER_PORT: String(port),
      WORKER_REDIS_URL: REDIS_URL,
      WORKER_QUEUE_NAMESPACE: namespace(),
      WORKER_LOCK_DURATION_MS: '2000',
      WORKER_STALLED_INTERVAL_MS: '1000',
      MODEL_CACHE_DIR: SHARED_MODEL_CACHE,
      WORKER_WORK_DIR: workDir,
    });
    const startServer = async (): Promise<RunningProcess> => {
      const proc = startProcess(['dist/src/worker/main.js'], env);
      await proc.waitFor(/listening on .*durable on Redis/, 60_000);
      return proc;
    };
    let server = await startServer();
    const api = await startApi(workerUrl);
    try {
      const id = await createJob(api);
      await eventually(async () => ((await workerHealth(workerUrl))?.jobs.inProgress ? true : undefined), 60_000, 50);
      await new Promise((resolve) => setTimeout(resolve, 1500)); // well into the run: input fetched, engine going
      if (signal === 'SIGKILL') killHard(server);
      else expect(await server.stop('SIGTERM')).toBe(0); // hands its running job back to the queue and exits
      await new Promise((resolve) => setTimeout(resolve, 1000));
      server = await startServer();
      const outcome = await waitForAll(api.t.config.env.DATABASE_URL!, [id], 180_000);
      const health = await workerHealth(workerUrl);
      // runs: the one interrupted (seen in progress before the signal) and those finished after the restart
      record(`worker server ${label} mid-job, restarted`, outcome, 1 + (health?.jobs.completed ?? 0) + (health?.jobs.failed ?? 0));
      expect(health?.jobs).toMatchObject({ completed: 1, failed: 0 }); // run again by the restarted server, from the queue
      const job = (await api.t.http.get(`/v1/jobs/${id}`).set('X-Api-Key', api.key)).body;
      expect(job).toMatchObject({ status: 'completed', error_code: null });
    } finally {
      await api.t.close();
      await server.stop();
      rmSync(workDir, { recursive: true, force: true });
    }
  }, 300_000);

  it('a run that fails once is retried through /retry on the same worker and completes, charged once', async () => {
    let pool: EngineProcessPool | undefined;
    let runs = 0;
    // The fault: the first run dies as a lost GPU or a full disk would; the next ones are the real engine.
    const failingOnce = (config: WorkerServerConfig): JobProcessor => {
      pool = new EngineProcessPool({ concurrency: 1, cacheDir: config.modelCacheDir, workDir: config.workDir });
      const real = engineProcessor(pool, config);
      return async (input, context) => {
        runs += 1;
        if (runs === 1) throw new JobFailure('worker_failed', 'injected fault: the first run died');
        return real(input, context);
      };
    };
    let loopback: LoopbackWorker | undefined;
    let api: Awaited<ReturnType<typeof startApi>> | undefined;
    try {
      loopback = await startLoopbackWorker(WORKER_KEY, { WORKER_REDIS_URL: REDIS_URL, WORKER_QUEUE_NAMESPACE: namespace() }, failingOnce);
      api = await startApi(loopback.worker.url);
      const id = await createJob(api);
      const outcome = await waitForAll(api.t.config.env.DATABASE_URL!, [id], 180_000);
      record('a run failed once, retried through /retry', outcome, runs);
      expect(runs).toBe(2);
      expect((await loopback.worker.queue.health()).jobs).toMatchObject({ completed: 1, retried: 1 });
    } finally {
      await api?.t.close();
      await loopback?.close();
      await pool?.close();
    }
  }, 300_000);
});
