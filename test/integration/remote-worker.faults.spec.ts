/**
 * RemoteHttpWorkerGateway against scriptable RunPod-protocol servers on loopback, through the real
 * API (HTTP, Postgres, queue): timeouts, 5xx with backoff and failover, workers that disappear, 429
 * with Retry-After, worker failure codes, wrong keys, and the authenticated callback.
 */
import * as path from 'node:path';
import { CallbackSigner } from '../../src/modules/worker-gateway/adapters/remote-http/callback-signer';
import { FakeRunpodServer, refusedUrl } from '../support/fake-runpod-server';
import { storageKeys } from '../../src/common/storage-keys';
import { RemoteRunRegistry } from '../../src/modules/worker-gateway/ports/remote-run-registry';
import { eventually, MEDIA_DIR, startTestApp, TestApp } from '../support/test-app';

const CLIP = path.join(MEDIA_DIR, 'portrait-pan.mp4');
const WORKER_KEY = 'worker-key-0123456789abcdef';

interface JobView {
  id: string;
  status: string;
  error: string | null;
  error_code: string | null;
  output_url: string | null;
}

const tally = { completed: 0, failed: 0, codes: {} as Record<string, number> };

interface Api {
  t: TestApp;
  key: string;
  videoUrl: string;
  /** creates and starts a job; resolves with its final state */
  runJob(onStarted?: (id: string) => Promise<void>): Promise<JobView & { elapsedMs: number }>;
  /** the job's state once completed or failed */
  waitForEnd(id: string): Promise<JobView>;
}

async function startApi(workerUrls: string[], env: Record<string, string> = {}): Promise<Api> {
  const t = await startTestApp(
    {
      REDIS_URL: 'redis://127.0.0.1:6379',
      RATE_LIMIT_STARTS_PER_MINUTE: '1000',
      RATE_LIMIT_PER_MINUTE: '100000',
      WORKER_GATEWAY: 'remote',
      WORKER_URLS: workerUrls.join(','),
      WORKER_API_KEY: WORKER_KEY,
      WORKER_POLL_INTERVAL_MS: '100',
      WORKER_REQUEST_TIMEOUT_MS: '1000',
      WORKER_RETRY_ATTEMPTS: '3',
      WORKER_RETRY_BASE_DELAY_MS: '100',
      WORKER_JOB_TIMEOUT_SECONDS: '20',
      ...env,
    },
    { realWorkerGateway: true },
  );
  const key = await t.createKey(100_000);
  const upload = await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', CLIP);
  expect(upload.status).toBe(200);
  const waitForEnd = (id: string): Promise<JobView> =>
    eventually(async () => {
      const res = await t.http.get(`/v1/jobs/${id}`).set('X-Api-Key', key);
      return ['completed', 'failed'].includes(res.body.status) ? (res.body as JobView) : undefined;
    }, 30_000);
  const runJob = async (onStarted?: (id: string) => Promise<void>): Promise<JobView & { elapsedMs: number }> => {
    const started = Date.now();
    const created = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: upload.body.video_url, model: 'light', preview_duration: 1 });
    expect(created.status).toBe(200);
    await onStarted?.(created.body.id);
    const job = await waitForEnd(created.body.id);
    if (job.status === 'completed') tally.completed += 1;
    else {
      tally.failed += 1;
      tally.codes[job.error_code ?? 'none'] = (tally.codes[job.error_code ?? 'none'] ?? 0) + 1;
    }
    return { ...job, elapsedMs: Date.now() - started };
  };
  return { t, key, videoUrl: upload.body.video_url, runJob, waitForEnd };
}

const gaps = (times: number[]): number[] => times.slice(1).map((time, index) => time - times[index]);

describe('remote workers: faults (fake RunPod-protocol servers over loopback HTTP)', () => {
  afterAll(() => {
    console.log(`remote worker fault tests: ${tally.completed} jobs completed, ${tally.failed} failed ${JSON.stringify(tally.codes)}`);
  });

  describe('a worker that never finishes', () => {
    let worker: FakeRunpodServer;
    let api: Api;
    beforeAll(async () => {
      worker = await FakeRunpodServer.start(WORKER_KEY);
      worker.script = { kind: 'never' };
      api = await startApi([worker.url], { WORKER_JOB_TIMEOUT_SECONDS: '2' });
    });
    afterAll(async () => {
      await api.t.close();
      await worker.stop();
    });

    it('fails the job with worker_timeout after WORKER_JOB_TIMEOUT_SECONDS and cancels it on the worker', async () => {
      // meanwhile, the progress of the worker's status objects reaches the job
      const progressSeen = async (id: string): Promise<void> =>
        void (await eventually(async () => {
          const res = await api.t.http.get(`/v1/jobs/${id}`).set('X-Api-Key', api.key);
          return res.body.status === 'processing' && res.body.progress > 0 ? true : undefined;
        }, 5000));
      const job = await api.runJob(progressSeen);
      expect(job).toMatchObject({ status: 'failed', error_code: 'worker_timeout', output_url: null });
      expect(job.elapsedMs).toBeGreaterThanOrEqual(2000);
      expect(job.elapsedMs).toBeLessThan(10_000);
      const [accepted] = [...worker.jobs.values()];
      expect(worker.to('POST /cancel').map((request) => request.path)).toEqual([`/cancel/${accepted.id}`]);
      expect(accepted.status.status).toBe('CANCELLED');
      expect(worker.to('GET /status').length).toBeGreaterThan(5);
    });
  });

  describe('a worker answering 500, and a second one', () => {
    let failing: FakeRunpodServer;
    let healthy: FakeRunpodServer;
    let api: Api;
    beforeAll(async () => {
      [failing, healthy] = await Promise.all([FakeRunpodServer.start(WORKER_KEY), FakeRunpodServer.start(WORKER_KEY)]);
      failing.answerNext('POST /run', { status: 500 }, 100);
      api = await startApi([failing.url, healthy.url]);
    });
    afterAll(async () => {
      await api.t.close();
      await Promise.all([failing.stop(), healthy.stop()]);
    });

    it('retries /run with exponential backoff, then fails over to the second URL, whose status polls it sticks to', async () => {
      const job = await api.runJob();
      expect(job).toMatchObject({ status: 'completed', error_code: null });
      const attempts = failing.to('POST /run');
      expect(attempts).toHaveLength(3);
      const [first, second] = gaps(attempts.map((request) => request.at));
      expect(first).toBeGreaterThanOrEqual(95);
      expect(second).toBeGreaterThanOrEqual(190);
      expect(second).toBeGreaterThan(first);
      expect(healthy.to('POST /run')).toHaveLength(1);
      expect(healthy.to('GET /status').length).toBeGreaterThanOrEqual(1);
      expect(failing.to('GET /status')).toHaveLength(0);
      expect(attempts.every((request) => request.authorization === WORKER_KEY)).toBe(true);
    });

    it('skips the failing worker while it cools down (round robin would have tried it), and outputs download', async () => {
      await api.runJob();
      const job = await api.runJob();
      expect(job.status).toBe('completed');
      expect(failing.to('POST /run')).toHaveLength(3);
      expect(healthy.to('POST /run')).toHaveLength(3);
      const download = await api.t.http.get(new URL(job.output_url!).pathname + new URL(job.output_url!).search);
      expect(download.status).toBe(200);
      expect(download.body.length).toBeGreaterThan(1000);
    });
  });

  describe('workers that disappear', () => {
    let worker: FakeRunpodServer;
    let gone: string;
    let api: Api;
    beforeAll(async () => {
      [worker, gone] = await Promise.all([FakeRunpodServer.start(WORKER_KEY), refusedUrl()]);
      api = await startApi([gone, worker.url], { WORKER_UNREACHABLE_GRACE_SECONDS: '0' }); // no grace: a silent worker fails its job at once
    });
    afterAll(async () => {
      await api.t.close();
      await worker.stop().catch(() => undefined);
    });

    it('fails over from a refused connection to the next URL', async () => {
      const job = await api.runJob();
      expect(job.status).toBe('completed');
      expect(worker.to('POST /run')).toHaveLength(1);
    });

    it('reports the worker configured while one worker answers /health', async () => {
      const health = await api.t.http.get('/health');
      expect(health.body.checks.worker_configured).toBe('ok');
    });

    it('fails the job with worker_failed when the worker that took it stops answering', async () => {
      worker.script = { kind: 'never' };
      const before = worker.to('GET /status').length;
      const job = await api.runJob(async () => {
        await eventually(async () => (worker.to('GET /status').length >= before + 3 ? true : undefined));
        await worker.stop();
      });
      expect(job).toMatchObject({ status: 'failed', error_code: 'worker_failed', error: 'The remote worker stopped answering' });
    });

    it('fails jobs with worker_failed and health with a reason when no worker is reachable', async () => {
      const job = await api.runJob();
      expect(job).toMatchObject({ status: 'failed', error_code: 'worker_failed', error: 'No remote worker accepted the job' });
      const health = await api.t.http.get('/health');
      expect(health.status).toBe(503);
      expect(health.body.checks.worker_configured).toBe('none of the 2 remote workers answers /health');
    });
  });

  describe('one worker: busy answers, failure codes and callbacks (polling every 20 s)', () => {
    let worker: FakeRunpodServer;
    let api: Api;
    beforeAll(async () => {
      worker = await FakeRunpodServer.start(WORKER_KEY);
      api = await startApi([worker.url], { WORKER_POLL_INTERVAL_MS: '20000' });
    });
    afterAll(async () => {
      await api.t.close();
      await worker.stop();
    });
    const signer = (): CallbackSigner => api.t.app.get(CallbackSigner);
    const jobIdOf = (url: URL): string => url.pathname.split('/').at(-1)!;
    beforeEach(() => {
      worker.requests.length = 0;
      worker.script = { kind: 'complete', afterPolls: 1 };
    });

    it('honours Retry-After on a 429 from /run', async () => {
      worker.answerNext('POST /run', { status: 429, headers: { 'retry-after': '1' } });
      const job = await api.runJob();
      expect(job.status).toBe('completed');
      const [gap] = gaps(worker.to('POST /run').map((request) => request.at));
      expect(gap).toBeGreaterThanOrEqual(990);
    });

    it('honours Retry-After on a 429 from /status', async () => {
      worker.answerNext('GET /status', { status: 429, headers: { 'retry-after': '1' } });
      const job = await api.runJob();
      expect(job.status).toBe('completed');
      const polls = worker.to('GET /status');
      expect(polls).toHaveLength(2);
      expect(gaps(polls.map((request) => request.at))[0]).toBeGreaterThanOrEqual(990);
    });

    it.each([
      ['input_too_long', 'input_too_long'],
      ['model_unavailable', 'model_unavailable'],
      ['gpu_on_fire', 'worker_failed'],
      [undefined, 'worker_failed'],
    ])('maps a FAILED status with errorCode %s to error_code %s', async (errorCode, expected) => {
      worker.script = { kind: 'fail', afterPolls: 1, error: 'scripted failure', errorCode };
      const job = await api.runJob();
      expect(job).toMatchObject({ status: 'failed', error_code: expected, error: 'scripted failure' });
    });

    it("keeps a run's signed URLs out of the job's error when the worker's trace names them (they were shown to the client and sent in its webhook)", async () => {
      const trace = 'HTTPError: 403 Forbidden for url: http://127.0.0.1:3917/files/uploads/vid_x?expires=1796612830&signature=1238cf19; output to https://user:pw@bucket.s3.example.com/outputs/job_y.webm?X-Amz-Credential=AKIA%2F&X-Amz-Signature=abc';
      worker.script = { kind: 'fail', afterPolls: 1, error: trace };
      const job = await api.runJob();
      expect(job.error).toBe('HTTPError: 403 Forbidden for url: http://127.0.0.1:3917/files/uploads/vid_x?[redacted] output to https://bucket.s3.example.com/outputs/job_y.webm?[redacted]');
    });

    it('fails a job whose run the worker reports CANCELLED unasked with worker_failed, which a chunk retries; it was `canceled`, which nobody had asked for and a chunk never retries', async () => {
      worker.script = { kind: 'cancelled', afterPolls: 1 };
      const job = await api.runJob();
      expect(job).toMatchObject({ status: 'failed', error_code: 'worker_failed', billing_status: 'refunded' });
      expect(worker.to('POST /cancel')).toEqual([]);
    });

    it.each([
      ['says it processed no seconds (it was completed free)', { output: { duration_seconds: 0 } }, 'worker_failed', 'The remote worker reported no usable output'],
      ['says it processed -500 s', { output: { duration_seconds: -500, frames: -3 } }, 'worker_failed', 'The remote worker reported no usable output'],
      ['stored an empty output', { emptyOutput: true }, 'output_failed', 'The remote worker finished but stored an empty output'],
    ])('fails a job whose worker %s, refunded', async (_case, script, code, message) => {
      worker.script = { kind: 'complete', afterPolls: 1, ...script };
      const job = await api.runJob();
      expect(job).toMatchObject({ status: 'failed', error_code: code, error: message, billing_status: 'refunded', credits_charged: null });
    });

    describe('a run an earlier attempt at the job remembered (its process died)', () => {
      const registry = (): RemoteRunRegistry => api.t.app.get(RemoteRunRegistry);
      const minutes = (n: number) => new Date(Date.now() + n * 60_000);
      let elsewhere: FakeRunpodServer;
      beforeAll(async () => {
        elsewhere = await FakeRunpodServer.start(WORKER_KEY);
      });
      afterAll(async () => {
        await elsewhere.stop();
      });

      it.each([
        ['that its worker no longer knows', () => ({ endpoint: worker.url, deadline: minutes(10) }), { statusPolls: 1, cancels: 0 }],
        ['past its deadline', () => ({ endpoint: worker.url, deadline: minutes(-1) }), { statusPolls: 0, cancels: 1 }],
        ['on a worker no longer in WORKER_URLS (never called)', () => ({ endpoint: elsewhere.url, deadline: minutes(10) }), { statusPolls: 0, cancels: 0 }],
      ])('%s: not followed; the job is submitted anew, completes, and the run is forgotten', async (_case, earlier, calls) => {
        const draft = await api.t.http.post('/v1/jobs').set('X-Api-Key', api.key).send({ video_url: api.videoUrl, model: 'light', output_format: 'webm', preview_duration: 1, auto_start: false });
        expect(draft.status).toBe(200);
        const taskKey = storageKeys.output(draft.body.id, 'webm');
        await registry().remember(taskKey, { id: 'earlier-run', ...earlier() }, new Date());
        expect((await api.t.http.post(`/v1/jobs/${draft.body.id}/start`).set('X-Api-Key', api.key).send({})).status).toBe(200);
        const job = await api.waitForEnd(draft.body.id);
        expect(job.status).toBe('completed');
        expect({ runs: worker.to('POST /run').length, statusPolls: worker.to('GET /status/earlier-run').length, cancels: worker.to('POST /cancel/earlier-run').length }).toEqual({ runs: 1, ...calls });
        expect(elsewhere.requests).toEqual([]);
        expect(await registry().find(taskKey)).toBeNull();
      });

      it('on a worker that does not answer now: followed with its grace, not submitted anew to race it once it is back (here it comes back without the run)', async () => {
        const draft = await api.t.http.post('/v1/jobs').set('X-Api-Key', api.key).send({ video_url: api.videoUrl, model: 'light', output_format: 'webm', preview_duration: 1, auto_start: false });
        const taskKey = storageKeys.output(draft.body.id, 'webm');
        await registry().remember(taskKey, { id: 'earlier-run', endpoint: worker.url, deadline: minutes(10) }, new Date());
        worker.answerNext('GET /status', { status: 503 }, 3);
        expect((await api.t.http.post(`/v1/jobs/${draft.body.id}/start`).set('X-Api-Key', api.key).send({})).status).toBe(200);
        expect(await api.waitForEnd(draft.body.id)).toMatchObject({ status: 'failed', error_code: 'worker_failed', error: 'The remote worker lost the job' });
        expect({ runs: worker.to('POST /run').length, cancels: worker.to('POST /cancel').length }).toEqual({ runs: 0, cancels: 0 });
        expect(await registry().find(taskKey)).toBeNull();
      });
    });

    it('completes as soon as the authenticated callback arrives, not at the next poll', async () => {
      worker.script = { kind: 'complete', afterMs: 300, webhook: true };
      const job = await api.runJob();
      expect(job.status).toBe('completed');
      expect(job.elapsedMs).toBeLessThan(10_000);
      expect(worker.to('GET /status')).toHaveLength(1);
      expect(worker.webhookAnswers.at(-1)).toBe(200);
      const webhook = (worker.jobs.get([...worker.jobs.keys()].at(-1)!)!).request.webhook!;
      expect(webhook).toMatch(/\/internal\/worker-callbacks\/job_[0-9A-Za-z]+\?expires=\d+&signature=[0-9a-f]{64}$/);
    });

    it.each([
      ['without a signature', 'invalid', (url: URL) => (url.search = '')],
      ['with a wrong signature', 'invalid', (url: URL) => url.searchParams.set('signature', 'f'.repeat(64))],
      ['with another expiry', 'invalid', (url: URL) => url.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 1))],
      ['signed for another job', 'invalid', (url: URL) => (url.pathname = url.pathname.replace(/job_\w+$/, 'job_01ARZ3NDEKTSV4RRFFQ69G5FAV'))],
      ['whose signature expired', 'expired', (url: URL) => (url.search = new URL(signer().url('http://x', jobIdOf(url), -60)).search)],
    ])('refuses a callback %s with 403 in the error envelope', async (_label, reason, tamper) => {
      const url = new URL([...worker.jobs.values()].at(-1)!.request.webhook!);
      tamper(url);
      const res = await api.t.http.post(url.pathname + url.search).send({ id: 'x', status: 'COMPLETED' });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ success: false, error: { code: 'forbidden', message: `This callback link ${reason === 'expired' ? 'has expired' : 'is invalid'}` } });
      expect(res.body.error.request_id).toMatch(/^req_/);
    });

    it('accepts a signed callback that no gateway here waits for, and refuses one that is not a status object', async () => {
      const url = new URL([...worker.jobs.values()].at(-1)!.request.webhook!);
      const late = await api.t.http.post(url.pathname + url.search).send({ id: 'x', status: 'COMPLETED' });
      expect(late.status).toBe(200);
      expect(late.body).toEqual({ success: true, delivered: false });
      const junk = await api.t.http.post(url.pathname + url.search).send({ hello: 'world' });
      expect(junk.status).toBe(400);
      expect(junk.body.error.code).toBe('invalid_request');
    });
  });

  describe('a worker with another API key', () => {
    let worker: FakeRunpodServer;
    let api: Api;
    beforeAll(async () => {
      worker = await FakeRunpodServer.start('some-other-worker-key-0123');
      api = await startApi([worker.url]);
    });
    afterAll(async () => {
      await api.t.close();
      await worker.stop();
    });

    it('refuses the gateway (401), so the job fails with worker_failed and health says so', async () => {
      const job = await api.runJob();
      expect(job).toMatchObject({ status: 'failed', error_code: 'worker_failed' });
      expect(worker.to('POST /run')).toHaveLength(1); // 401 is final, not retried
      expect(worker.jobs.size).toBe(0);
      const health = await api.t.http.get('/health');
      expect(health.body.checks.worker_configured).toBe('none of the 1 remote workers answers /health');
    });
  });
});
