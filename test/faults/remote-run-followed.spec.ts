/**
 * The API's worker process that follows a remote run, killed (-9) or shut down past its grace
 * mid-run: the job's next attempt, on another worker process, follows the run the remote worker
 * already has. It submitted a second run (the SIGTERM case canceled the first), so the same job ran
 * twice on paid remote capacity, and the two runs raced to its output.
 */
import { Client } from 'pg';
import { Cluster, createJob, createKey, killHard, uploadClip, waitForAll, withProcessOutput } from '../support/cluster';
import { FakeRunpodServer } from '../support/fake-runpod-server';
import { eventually } from '../support/test-app';
import { createTestDatabase, TestDatabase } from '../support/test-database';

const WORKER_KEY = 'followed-run-key-0123456789abcdef';
/** the remote run's length: long enough for the kill and the other worker's pick-up (locks last 2 s) */
const RUN_MS = 12_000;

async function rememberedRuns(databaseUrl: string): Promise<number> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    return Number((await db.query(`SELECT count(*) AS n FROM remote_runs`)).rows[0].n);
  } finally {
    await db.end();
  }
}

describe('a remote run outlives the worker process that followed it', () => {
  let database: TestDatabase;
  let remote: FakeRunpodServer;

  beforeEach(async () => {
    database = await createTestDatabase();
    remote = await FakeRunpodServer.start(WORKER_KEY);
    remote.script = { kind: 'complete', afterMs: RUN_MS };
  });
  afterEach(async () => {
    await remote.stop();
    await database.drop();
  });

  const deployment = () =>
    new Cluster({
      DATABASE_URL: database.url,
      REDIS_URL: 'redis://127.0.0.1:6379',
      QUEUE_NAMESPACE: `followed_${Math.random().toString(36).slice(2, 10)}`,
      WORKER_GATEWAY: 'remote',
      WORKER_URLS: remote.url,
      WORKER_API_KEY: WORKER_KEY,
      WORKER_POLL_INTERVAL_MS: '200',
      WORKER_SHUTDOWN_GRACE_MS: '500',
    });

  /** an API, a worker process, and a job whose remote run that worker follows */
  async function runFollowed(cluster: Cluster) {
    const api = await cluster.start('api');
    const first = await cluster.start('worker');
    const key = await createKey(api, 1000);
    const id = await createJob(api, key, { video_url: await uploadClip(api, key), model: 'light', preview_duration: 1 });
    await eventually(async () => (remote.to('GET /status').length > 0 ? true : undefined), 60_000, 50);
    return { api, first, key, id };
  }

  it.each([
    ['kill -9', 'SIGKILL'],
    ['SIGTERM past its grace', 'SIGTERM'],
  ] as const)('%s of the worker process mid-run: the next worker process follows the same run, which is neither canceled nor run twice', async (_label, signal) => {
    const cluster = deployment();
    try {
      const { first, id } = await runFollowed(cluster);
      await cluster.start('worker');
      if (signal === 'SIGKILL') killHard(first);
      else await first.stop('SIGTERM');
      const outcome = await waitForAll(database.url, [id], 90_000);
      expect({ status: outcome.statuses, doubleCharges: outcome.doubleCharges, runs: remote.to('POST /run').length, cancels: remote.to('POST /cancel').length }).toEqual({
        status: { completed: 1 },
        doubleCharges: 0,
        runs: 1,
        cancels: 0,
      });
      expect(await rememberedRuns(database.url)).toBe(0);
    } catch (error) {
      throw withProcessOutput(error, cluster.processes);
    } finally {
      await cluster.stopAll();
    }
  }, 180_000);

  it('a job canceled while handed over, when no process follows its run: the worker process that takes it next cancels the run on the remote worker', async () => {
    const cluster = deployment();
    try {
      const { api, first, key, id } = await runFollowed(cluster);
      await first.stop('SIGTERM');
      const canceled = await fetch(`${api.url}/v1/jobs/${id}/cancel`, { method: 'POST', headers: { 'X-Api-Key': key } });
      expect(canceled.status).toBe(200);
      await cluster.start('worker');
      await eventually(async () => (remote.to('POST /cancel').length > 0 ? true : undefined), 60_000, 100);
      expect({ runs: remote.to('POST /run').length, cancels: remote.to('POST /cancel').map((request) => request.path.split('/').at(-1)) }).toEqual({ runs: 1, cancels: [...remote.jobs.keys()] });
      await eventually(async () => ((await rememberedRuns(database.url)) === 0 ? true : undefined), 10_000, 100);
    } catch (error) {
      throw withProcessOutput(error, cluster.processes);
    } finally {
      await cluster.stopAll();
    }
  }, 180_000);
});
