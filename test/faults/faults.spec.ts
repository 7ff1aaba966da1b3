import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { Cluster, createJob, createKey, killHard, randomPort, startRedis, Tally, unsentWebhooks, uploadClip, waitForAll, waitForStatus, withDeployment, withProcessOutput } from '../support/cluster';
import { startEmbeddedDatabase } from '../support/embedded-database';
import { startWebhookReceiver, WebhookReceiver } from '../support/webhook-receiver';
import { createTestDatabase, TestDatabase } from '../support/test-database';

/**
 * Faults a deployment meets: each case ends with zero lost jobs, zero double charges and zero
 * duplicate webhook events, read from the database and the receiver, and printed.
 */
const report: Array<Tally & { name: string; duplicateWebhooks: number }> = [];

/** each job announces its start and its completion */
const JOB_EVENTS = ['job.started', 'job.completed'] as const;
/** how long a job's last event may take to come after the database says it is done (the outbox sends it after that commit) */
const LAST_EVENTS_MS = 30000;
/** how long a delivery whose sender died may take to be sent again by another worker */
const REDELIVERY_MS = 10000;

/**
 * The case's outcome, checked and reported; with a `receiver`, once every job's events have come
 * (or LAST_EVENTS_MS has passed), so that an event announced twice late is still counted.
 */
async function record(name: string, outcome: Tally, receiver?: WebhookReceiver): Promise<void> {
  await receiver?.eventsBy(outcome.jobs * JOB_EVENTS.length, LAST_EVENTS_MS);
  // the events that did not come are named, and where one is missing the outbox's deliveries not yet
  // sent (a delivery is marked sent just after its receiver answered, so they are read only then)
  const missingEvents = receiver?.missing(outcome.jobIds, JOB_EVENTS) ?? [];
  const unsentDeliveries = missingEvents.length ? await unsentWebhooks(outcome.databaseUrl, outcome.jobIds) : [];
  const duplicateWebhooks = receiver?.duplicates() ?? 0;
  report.push({ name, ...outcome, duplicateWebhooks });
  // the jobs' statuses stand beside the counts, so that a job left behind says where it stopped
  expect({ lost: outcome.lost, doubleCharges: outcome.doubleCharges, doubleCompletions: outcome.doubleCompletions, duplicateWebhooks, missingEvents, unsentDeliveries, statuses: outcome.statuses }).toEqual({
    lost: 0,
    doubleCharges: 0,
    doubleCompletions: 0,
    duplicateWebhooks: 0,
    missingEvents: [],
    unsentDeliveries: [],
    statuses: { completed: outcome.jobs },
  });
}

afterAll(() => {
  const lines = report.map(
    (r) =>
      `  ${r.name.padEnd(44)} jobs=${r.jobs} completed=${r.completed} lost=${r.lost} double_charges=${r.doubleCharges} double_completions=${r.doubleCompletions} duplicate_webhooks=${r.duplicateWebhooks}` +
      (r.lost > 0 ? ` statuses=${JSON.stringify(r.statuses)}` : ''),
  );
  console.log(`fault suite:\n${lines.join('\n')}`);
});

describe('faults', () => {
  let database: TestDatabase;
  const redisNamespace = () => `faults_${Math.random().toString(36).slice(2, 10)}`;

  beforeEach(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    await database.drop();
  });

  const machineRedis = () => ({ DATABASE_URL: database.url, REDIS_URL: 'redis://127.0.0.1:6379', QUEUE_NAMESPACE: redisNamespace() });

  it('kill -9 of a worker mid-job: another worker picks the job up, charged and announced once', async () => {
    await withDeployment(machineRedis(), 1, async ({ cluster, api, workers, receiver, key, videoUrl }) => {
      const ids = [await createJob(api, key, { video_url: videoUrl, model: 'light', webhook_url: receiver.url })];
      await waitForStatus(database.url, ids[0], 'processing');
      killHard(workers[0]);
      ids.push(await createJob(api, key, { video_url: videoUrl, model: 'light', preview_duration: 0.5, webhook_url: receiver.url }));
      await cluster.start('worker');
      await record('kill -9 worker mid-job', await waitForAll(database.url, ids, 120000), receiver);
    });
  }, 240000);

  it('kill -9 of a worker mid-delivery: another worker sends the event again within a few stall intervals', async () => {
    await withDeployment(
      machineRedis(),
      1,
      async ({ cluster, api, workers, receiver, key, videoUrl }) => {
        const id = await createJob(api, key, { video_url: videoUrl, model: 'light', preview_duration: 0.5, webhook_url: receiver.url });
        const held = await receiver.heldRequest(90000);
        expect(held).toMatchObject({ job: id, event: 'job.completed' });
        await cluster.start('worker');
        killHard(workers[0]);
        // the cluster checks for stalled queue jobs every second (locks last 2 s); a queue left on BullMQ's 30 s default takes 15 to 60 s
        const deliveries = await receiver.deliveriesOnceCome(id, 'job.completed', REDELIVERY_MS);
        expect(deliveries.filter((delivery) => delivery.event === 'job.completed')).toEqual([held]);
        await record('kill -9 worker mid-delivery', await waitForAll(database.url, [id], 30000), receiver);
      },
      { holdFirst: 'job.completed' },
    );
  }, 240000);

  it('SIGTERM to a worker mid-job: it finishes or hands the job back, and the job completes once', async () => {
    await withDeployment(machineRedis(), 1, async ({ cluster, api, workers, receiver, key, videoUrl }) => {
      const id = await createJob(api, key, { video_url: videoUrl, model: 'light', webhook_url: receiver.url });
      await waitForStatus(database.url, id, 'processing');
      const exit = workers[0].stop('SIGTERM');
      await cluster.start('worker');
      await exit;
      await record('SIGTERM worker mid-job', await waitForAll(database.url, [id], 120000), receiver);
    });
  }, 240000);

  it('Redis (AOF on) stopped and restarted mid-run: queued and newly created jobs all complete', async () => {
    const redisDir = mkdtempSync(path.join(tmpdir(), 'backdrop-redis-'));
    const port = randomPort();
    let redis = startRedis(redisDir, port);
    await redis.waitFor(/Ready to accept connections/);
    try {
      await withDeployment({ DATABASE_URL: database.url, REDIS_URL: `redis://127.0.0.1:${port}`, QUEUE_NAMESPACE: redisNamespace() }, 1, async ({ api, receiver, key, videoUrl }) => {
        const job = { video_url: videoUrl, model: 'light', preview_duration: 0.5, webhook_url: receiver.url };
        const ids = [await createJob(api, key, job), await createJob(api, key, job), await createJob(api, key, job)];
        await redis.stop('SIGTERM');
        ids.push(await createJob(api, key, job), await createJob(api, key, job));
        await new Promise((resolve) => setTimeout(resolve, 1000));
        redis = startRedis(redisDir, port);
        await redis.waitFor(/Ready to accept connections/);
        await record('Redis stop/restart mid-run', await waitForAll(database.url, ids, 120000), receiver);
      });
    } finally {
      await redis.stop();
      rmSync(redisDir, { recursive: true, force: true });
    }
  }, 240000);

  it('Redis gone for good: SIGTERM still ends the process, within its graces (its queues never closed, and it went on serving until killed)', async () => {
    const redisDir = mkdtempSync(path.join(tmpdir(), 'backdrop-redis-'));
    const redis = startRedis(redisDir, randomPort());
    await redis.waitFor(/Ready to accept connections/);
    const cluster = new Cluster({ DATABASE_URL: database.url, REDIS_URL: `redis://127.0.0.1:${redis.port}`, QUEUE_NAMESPACE: redisNamespace(), WORKER_SHUTDOWN_GRACE_MS: '1000', HTTP_SHUTDOWN_GRACE_MS: '1000' });
    try {
      const app = await cluster.start('all');
      await redis.stop('SIGKILL');
      const signalled = Date.now();
      const exited = new Promise<number | null>((resolve) => app.child.once('exit', (code) => resolve(code)));
      app.child.kill('SIGTERM');
      // 1 s + 1 s of graces and 10 s for the rest; the helper's own stop would SIGKILL at 15 s
      const code = await Promise.race([exited, new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 14_000))]);
      expect({ code, output: app.output().match(/shutdown still waiting \d+ ms after SIGTERM/)?.[0] }).toEqual({ code: 1, output: 'shutdown still waiting 12000 ms after SIGTERM' });
      expect(Date.now() - signalled).toBeGreaterThanOrEqual(12_000);
    } finally {
      await cluster.stopAll();
      rmSync(redisDir, { recursive: true, force: true });
    }
  }, 120000);

  it('Postgres restarted mid-run: work resumes and completes once', async () => {
    let pg = await startEmbeddedDatabase();
    try {
      await withDeployment({ DATABASE_URL: pg.url, REDIS_URL: 'redis://127.0.0.1:6379', QUEUE_NAMESPACE: redisNamespace() }, 1, async ({ api, receiver, key, videoUrl }) => {
        const job = { video_url: videoUrl, model: 'light', preview_duration: 0.5, webhook_url: receiver.url };
        const ids = [await createJob(api, key, job), await createJob(api, key, job), await createJob(api, key, job), await createJob(api, key, job)];
        await pg.stop({ keepData: true });
        await new Promise((resolve) => setTimeout(resolve, 1500));
        pg = await startEmbeddedDatabase({ dataDir: pg.dataDir, port: pg.port });
        ids.push(await createJob(api, key, job));
        await record('Postgres restart mid-run', await waitForAll(pg.url, ids, 150000), receiver);
      });
    } finally {
      await pg.stop();
    }
  }, 300000);

  it('the API killed between commit and enqueue: the relay hands the committed job over', async () => {
    const cluster = new Cluster({ DATABASE_URL: database.url, REDIS_URL: 'redis://127.0.0.1:6379', QUEUE_NAMESPACE: redisNamespace() });
    try {
      const api = await cluster.start('api');
      const key = await createKey(api, 1000);
      const videoUrl = await uploadClip(api, key);
      const id = await createJob(api, key, { video_url: videoUrl, model: 'light', preview_duration: 0.5, auto_start: false });
      // The state a crash right after the commit leaves: pending, reserved, never handed to the queue.
      const db = new Client({ connectionString: database.url });
      await db.connect();
      await db.query(`UPDATE jobs SET status = 'pending', started_at = now(), dispatched_at = NULL WHERE id = $1`, [id]);
      await db.end();
      killHard(api);
      await cluster.start('worker');
      await record('API killed between commit and enqueue', await waitForAll(database.url, [id], 90000));
    } catch (error) {
      throw withProcessOutput(error, cluster.processes);
    } finally {
      await cluster.stopAll();
    }
  }, 180000);

  it('two API processes and two workers share Postgres and Redis: 50 jobs, none lost or done twice', async () => {
    const cluster = new Cluster({ DATABASE_URL: database.url, REDIS_URL: 'redis://127.0.0.1:6379', QUEUE_NAMESPACE: redisNamespace() });
    const receiver = await startWebhookReceiver();
    try {
      const apis = [await cluster.start('api'), await cluster.start('api')];
      await cluster.start('worker');
      await cluster.start('worker');
      const key = await createKey(apis[0], 100000);
      const videoUrl = await uploadClip(apis[0], key);
      const ids = await Promise.all(
        Array.from({ length: 50 }, (_, i) => createJob(apis[i % 2], key, { video_url: videoUrl, model: 'light', preview_duration: 0.5, output_format: 'gif', webhook_url: receiver.url })),
      );
      await record('2 APIs + 2 workers, 50 jobs', await waitForAll(database.url, ids, 240000), receiver);
    } catch (error) {
      throw withProcessOutput(error, cluster.processes);
    } finally {
      await receiver.close();
      await cluster.stopAll();
    }
  }, 360000);
});

