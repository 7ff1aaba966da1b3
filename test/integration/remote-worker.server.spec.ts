/**
 * The standalone worker server over real HTTP, with its real transfers (signed-URL GET of the input,
 * streamed PUT of the output, webhook) against a loopback file server, and a scripted engine pool in
 * place of the engine: queue bounds, dedupe, cancel, execution timeout, result expiry, size cap,
 * refused uploads, engine error codes, temp files.
 */
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { EngineError, EngineProgress, EngineRequest, EngineResult } from '../../src/engine/types';
import { EnginePool } from '../../src/common/worker-protocol/engine-request';
import { RemoteStatus, RunRequest } from '../../src/common/worker-protocol/runpod-protocol';
import { engineProcessor } from '../../src/worker/engine-processor';
import { RunningWorker, startWorker } from '../../src/worker/worker-app';
import { loadWorkerServerConfig } from '../../src/config/worker-server-config';
import { createLogger } from '../../src/common/logging/pino-logger';
import { eventually, MEDIA_DIR } from '../support/test-app';
import { createTestDatabase, TestDatabase } from '../support/test-database';

const CLIP = path.join(MEDIA_DIR, 'portrait-pan.mp4');
const KEY = 'server-spec-key-0123456789abcdef';

/** Engine pool double: copies the input to the output, or holds until aborted, or fails. */
class ScriptedPool implements EnginePool {
  mode: 'copy' | 'hold' | { fail: EngineError } = 'copy';
  readonly started: string[] = [];
  readonly aborted: string[] = [];
  readonly requests: EngineRequest[] = [];

  async run(request: EngineRequest, onProgress?: (progress: EngineProgress) => void, signal?: AbortSignal): Promise<EngineResult> {
    this.started.push(request.inputPath);
    this.requests.push(request);
    onProgress?.({ framesDone: 5, framesTotal: 10 });
    if (typeof this.mode === 'object') throw this.mode.fail;
    if (this.mode === 'hold') {
      if (!signal?.aborted) await new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }));
      this.aborted.push(request.inputPath);
      throw new EngineError('canceled', 'processing was canceled');
    }
    await copyFile(request.inputPath, request.outputPath);
    return { durationSeconds: 1, frames: 25, width: 640, height: 360, outputFormat: 'webm', modelUsed: 'light', notes: ['scripted'] };
  }

  async close(): Promise<void> {}
}

/** Serves the clip at /input (3 MB at /big, a stalled body at /stall), takes PUTs at /output (403 at /refused), records webhooks at /webhook. */
async function startFileServer(): Promise<{ url: string; uploads: Buffer[]; webhooks: RemoteStatus[]; close(): Promise<void> }> {
  const uploads: Buffer[] = [];
  const webhooks: RemoteStatus[] = [];
  const stalled: http.ServerResponse[] = [];
  const serve = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<unknown> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    if (req.method === 'GET' && req.url === '/input') return res.end(await readFile(CLIP));
    if (req.method === 'GET' && req.url === '/big') return res.end(Buffer.alloc(3_000_000)); // chunked: no length declared
    if (req.method === 'GET' && req.url === '/stall') return void (res.writeHead(200, { 'content-length': '1000000' }), res.write('x'), stalled.push(res));
    if (req.method === 'PUT' && req.url === '/output') return (uploads.push(Buffer.concat(chunks)), res.end('{}'));
    if (req.method === 'PUT' && req.url === '/refused') return (res.writeHead(403), res.end());
    if (req.method === 'POST' && req.url === '/webhook') return (webhooks.push(JSON.parse(Buffer.concat(chunks).toString())), res.end());
    return res.writeHead(404).end();
  };
  // a request that fails (the client went away mid-body) is dropped, not an unhandled rejection in Jest's process
  const server = http.createServer((req, res) => void serve(req, res).catch(() => res.destroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    uploads,
    webhooks,
    close: async () => {
      stalled.forEach((res) => res.destroy());
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The same behaviour whichever queue keeps the jobs: in memory, or durable in BullMQ on Redis or Postgres. */
const QUEUES: Array<[string, Record<string, string>]> = [
  ['jobs in memory', {}],
  ['jobs in BullMQ on Redis', { WORKER_REDIS_URL: 'redis://127.0.0.1:6379' }],
  ['jobs in BullMQ on Postgres', { WORKER_DATABASE_URL: 'postgres' }],
];

describe.each(QUEUES)('worker server (real HTTP and transfers, scripted engine), %s', (_queue, queueEnv) => {
  let database: TestDatabase | undefined;
  let dir: string;
  let files: Awaited<ReturnType<typeof startFileServer>>;
  let pool: ScriptedPool;
  let worker: RunningWorker;
  let jobCounter = 0;

  const logLines: Array<Record<string, unknown>> = [];
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'worker-server-'));
    await mkdir(path.join(dir, 'work'));
    if (queueEnv.WORKER_DATABASE_URL) database = await createTestDatabase();
    const durable = queueEnv.WORKER_REDIS_URL || database ? { WORKER_QUEUE_NAMESPACE: `wsrv_${path.basename(dir).replace(/[^A-Za-z0-9]/g, '')}`, ...queueEnv, ...(database ? { WORKER_DATABASE_URL: database.url } : {}) } : {};
    files = await startFileServer();
    pool = new ScriptedPool();
    const config = loadWorkerServerConfig({
      WORKER_API_KEY: KEY,
      WORKER_HOST: '127.0.0.1',
      WORKER_PORT: '0',
      WORKER_CONCURRENCY: '1',
      WORKER_QUEUE_SIZE: '1',
      WORKER_RESULT_TTL_SECONDS: '2',
      WORKER_WORK_DIR: path.join(dir, 'work'),
      MAX_UPLOAD_BYTES: '2000000',
      WORKER_TRANSFER_TIMEOUT_MS: '5000',
      ...durable,
    });
    worker = await startWorker(config, engineProcessor(pool, config), createLogger('info', { write: (line: string) => void logLines.push(JSON.parse(line)) }));
  });
  afterAll(async () => {
    await worker.close();
    await files.close();
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    pool.mode = 'copy';
  });
  /** the runs a test sent: cancelled after it, so one that failed holding a run fails alone */
  const sentRuns = new Set<string>();
  afterEach(async () => {
    for (const id of sentRuns) await call('POST', `/cancel/${id}`);
    sentRuns.clear();
    await idle();
  });

  const call = async (method: string, pathname: string, body?: unknown): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> => {
    const res = await fetch(`${worker.url}${pathname}`, {
      method,
      headers: { authorization: KEY, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (pathname === '/run' && typeof json.id === 'string') sentRuns.add(json.id);
    return { status: res.status, headers: res.headers, json };
  };
  const runRequest = (overrides: Partial<RunRequest['input']> = {}, extra: Partial<RunRequest> = {}): RunRequest => ({
    input: {
      job_id: `job_${++jobCounter}`,
      input_url: `${files.url}/input`,
      background_image_url: null,
      output_upload_url: `${files.url}/output`,
      settings: { model: 'light', outputFormat: 'webm', background: { type: 'transparent' }, composition: null, previewDuration: 1, textPrompt: null },
      max_duration_seconds: 600,
      ...overrides,
    },
    webhook: `${files.url}/webhook`,
    ...extra,
  });
  const finalStatus = (id: string): Promise<Record<string, unknown>> =>
    eventually(async () => {
      const { json } = await call('GET', `/status/${id}`);
      return ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'].includes(json.status as string) ? json : undefined;
    }, 10_000, 25);
  const workFiles = (): Promise<string[]> => readdir(path.join(dir, 'work'));
  /** a run that must be taken: its id (a refusal fails here, not as a status that never comes) */
  const submit = async (request: RunRequest): Promise<string> => {
    const { status, json } = await call('POST', '/run', request);
    expect({ status, json }).toMatchObject({ status: 200, json: { status: 'IN_QUEUE' } });
    return json.id as string;
  };
  /**
   * Nothing running here and no run in progress or waiting in the queue (cancelled runs left in the
   * line count for nothing). The engine's slot is free a moment before the queue has recorded the
   * run's end: a run sent in that moment was refused 429 (on Postgres, 2 in 6 tries right after the
   * slot freed).
   */
  const idle = (): Promise<true> =>
    eventually(async () => {
      const { jobs, workers } = await worker.queue.health();
      return workers.running === 0 && jobs.inProgress === 0 && jobs.inQueue === 0 ? true : undefined;
    });

  it('fetches the input, runs the engine, PUTs the output, posts the webhook and removes its temp files', async () => {
    const { status, json } = await call('POST', '/run', runRequest());
    expect(status).toBe(200);
    expect(json).toEqual({ id: expect.any(String), status: 'IN_QUEUE' });
    const done = await finalStatus(json.id as string);
    expect(done).toMatchObject({ status: 'COMPLETED', output: { duration_seconds: 1, frames: 25, notes: ['scripted'], model_used: 'light' } });
    expect(typeof done.delayTime).toBe('number');
    expect(typeof done.executionTime).toBe('number');
    expect(files.uploads.at(-1)!.equals(await readFile(CLIP))).toBe(true);
    await eventually(async () => (files.webhooks.some((hook) => hook.id === json.id) ? true : undefined));
    expect(files.webhooks.find((hook) => hook.id === json.id)).toMatchObject({ status: 'COMPLETED' });
    expect(await workFiles()).toEqual([]);
  });

  it('keeps one run going plus one waiting, refuses more with 429 and Retry-After, and takes the same job once', async () => {
    pool.mode = 'hold';
    const engineRuns = pool.started.length;
    const first = await call('POST', '/run', runRequest());
    await eventually(async () => (pool.started.length > engineRuns ? true : undefined));
    // the run's progress is written to a durable queue a moment after the engine reports it
    await eventually(async () => ((await call('GET', `/status/${first.json.id}`)).json.progress === 50 ? true : undefined));
    expect((await call('GET', `/status/${first.json.id}`)).json).toMatchObject({ status: 'IN_PROGRESS', progress: 50 });
    const secondRequest = runRequest();
    const second = await call('POST', '/run', secondRequest);
    expect(second.json.status).toBe('IN_QUEUE');
    const again = await call('POST', '/run', secondRequest);
    expect(again.json.id).toBe(second.json.id);
    const third = await call('POST', '/run', runRequest());
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('5');
    expect((await call('GET', '/health')).json).toEqual({ jobs: expect.objectContaining({ inProgress: 1, inQueue: 1 }), workers: { idle: 0, running: 1 } });

    expect((await call('POST', `/cancel/${second.json.id}`)).json).toEqual({ id: second.json.id, status: 'CANCELLED' });
    expect((await call('POST', `/cancel/${first.json.id}`)).json).toEqual({ id: first.json.id, status: 'CANCELLED' });
    await idle();
    expect(pool.aborted).toHaveLength(1);
    expect((await call('GET', `/status/${first.json.id}`)).json.status).toBe('CANCELLED');
    expect(await workFiles()).toEqual([]);
  });

  it('gives up the place of a waiting run once it is cancelled, while the run before it goes on', async () => {
    pool.mode = 'hold';
    const engineRuns = pool.started.length;
    const running = await submit(runRequest());
    await eventually(async () => (pool.started.length > engineRuns ? true : undefined));
    const waiting = await submit(runRequest());
    expect((await call('POST', '/run', runRequest())).status).toBe(429);
    expect((await call('POST', `/cancel/${waiting}`)).json).toEqual({ id: waiting, status: 'CANCELLED' });
    expect((await call('GET', '/health')).json.jobs).toMatchObject({ inProgress: 1, inQueue: 0 });
    const next = await submit(runRequest());
    expect((await call('GET', `/status/${waiting}`)).json.status).toBe('CANCELLED');
    for (const id of [next, running]) await call('POST', `/cancel/${id}`);
  });

  it('takes a run sent again after it was cancelled while waiting as a run afresh, not the cancelled one (the API retrying a chunk it had given up on got CANCELLED and failed the job "canceled")', async () => {
    pool.mode = 'hold';
    const engineRuns = pool.started.length;
    const running = await submit(runRequest());
    await eventually(async () => (pool.started.length > engineRuns ? true : undefined));
    const request = runRequest();
    const waiting = await submit(request);
    expect((await call('POST', `/cancel/${waiting}`)).json.status).toBe('CANCELLED');
    const again = await call('POST', '/run', request);
    expect(again).toMatchObject({ status: 200, json: { status: 'IN_QUEUE' } });
    expect((await call('GET', `/status/${again.json.id}`)).json.status).toBe('IN_QUEUE');
    pool.mode = 'copy';
    await call('POST', `/cancel/${running}`);
    expect(await finalStatus(again.json.id as string)).toMatchObject({ status: 'COMPLETED' });
  });

  it("runs each chunk of a long job, which share its job_id, as a run of its own (a chunk got another's run back), and the same chunk sent again once", async () => {
    pool.mode = 'hold';
    const chunk = (start: number) => runRequest({ job_id: 'job_chunked', segment: { start_seconds: start, end_seconds: start + 1, preroll_seconds: 0.5 } });
    const first = await call('POST', '/run', chunk(0));
    const second = await call('POST', '/run', chunk(1));
    expect(second.status).toBe(200);
    expect(second.json.id).not.toBe(first.json.id);
    expect((await call('POST', '/run', chunk(1))).json.id).toBe(second.json.id);
    for (const run of [second, first]) await call('POST', `/cancel/${run.json.id}`);
  });

  it('times a run out after policy.executionTimeout, aborting the engine', async () => {
    pool.mode = 'hold';
    const id = await submit(runRequest({}, { policy: { executionTimeout: 300 } }));
    const done = await finalStatus(id);
    expect(done).toMatchObject({ status: 'TIMED_OUT', error: 'Processing took longer than 300 ms' });
    await eventually(async () => ((await worker.queue.health()).workers.running === 0 ? true : undefined));
    expect(await workFiles()).toEqual([]);
  });

  it('retries a TIMED_OUT job on POST /retry', async () => {
    pool.mode = 'hold';
    // the retry runs under the same policy: long enough for the copy (with its input fetch and
    // upload) on a loaded machine, where 200 ms timed the retry out too
    const id = await submit(runRequest({}, { policy: { executionTimeout: 2000 } }));
    expect(await finalStatus(id)).toMatchObject({ status: 'TIMED_OUT' });
    pool.mode = 'copy';
    expect((await call('POST', `/retry/${id}`)).json).toEqual({ id, status: 'IN_QUEUE' });
    expect(await finalStatus(id)).toMatchObject({ status: 'COMPLETED' });
    expect((await call('POST', `/retry/${id}`)).status).toBe(409);
    expect((await worker.queue.health()).jobs.retried).toBe(1);
  });

  it('cancels a run stuck fetching its input at once', async () => {
    const id = await submit(runRequest({ input_url: `${files.url}/stall` }));
    await eventually(async () => ((await call('GET', `/status/${id}`)).json.status === 'IN_PROGRESS' ? true : undefined));
    await call('POST', `/cancel/${id}`);
    await eventually(async () => ((await worker.queue.health()).workers.running === 0 ? true : undefined), 2000, 20);
    expect(await workFiles()).toEqual([]);
  });

  it.each([
    ['an input over MAX_UPLOAD_BYTES', { input_url: 'SELF/big' }, 'worker_failed', /larger than 2000000 bytes/],
    ['an unreachable input', { input_url: 'SELF/missing' }, 'worker_failed', /The input video could not be fetched: answered HTTP 404/],
    ['a refused upload', { output_upload_url: 'SELF/refused' }, 'output_failed', /The output could not be uploaded: answered HTTP 403/],
  ])('fails a run with %s', async (_label, overrides, errorCode, message) => {
    const input = Object.fromEntries(Object.entries(overrides).map(([field, value]) => [field, value.replace('SELF', files.url)]));
    const id = await submit(runRequest(input));
    const done = await finalStatus(id);
    expect(done).toMatchObject({ status: 'FAILED', errorCode });
    expect(done.error).toMatch(message);
    expect(await workFiles()).toEqual([]);
  });

  it('reports the engine error code of a failed run, and logs its start and end as JSON lines naming the job, never its signed URLs (a failed run left no line)', async () => {
    pool.mode = { fail: new EngineError('input_too_long', 'the video is longer than 600 s') };
    const request = runRequest();
    const id = await submit(request);
    expect(await finalStatus(id)).toMatchObject({ status: 'FAILED', errorCode: 'input_too_long', error: 'the video is longer than 600 s' });
    const lines = await eventually(async () => {
      const found = logLines.filter((line) => line.job_id === request.input.job_id);
      return found.length >= 2 ? found : undefined;
    });
    expect(lines).toEqual([
      expect.objectContaining({ level: 'info', msg: 'run started', model: request.input.settings.model }),
      expect.objectContaining({ level: 'warn', msg: 'run failed', error_code: 'input_too_long', error: 'the video is longer than 600 s', duration_ms: expect.any(Number) }),
    ]);
    expect(JSON.stringify(logLines)).not.toContain(request.input.input_url);
  });

  it('hands the API\'s media size limits to the engine (an API before max_video_fps: the engine\'s rate limit); without them, the engine\'s defaults apply', async () => {
    const media_limits = { max_video_width: 1920, max_video_height: 1080, max_video_pixels: 2073600, max_video_fps: 60, max_image_pixels: 1000000 };
    const limited = await submit(runRequest({ media_limits }));
    await finalStatus(limited);
    expect(pool.requests.at(-1)?.limits).toEqual({ maxVideoWidth: 1920, maxVideoHeight: 1080, maxVideoPixels: 2073600, maxFrameRate: 60, maxImagePixels: 1000000 });
    const older = await submit(runRequest({ media_limits: { ...media_limits, max_video_fps: undefined } }));
    await finalStatus(older);
    expect(pool.requests.at(-1)?.limits).toMatchObject({ maxVideoPixels: 2073600, maxFrameRate: 240 });
    const plain = await submit(runRequest());
    await finalStatus(plain);
    expect(pool.requests.at(-1)?.limits).toBeUndefined();
  });

  it.each([
    [{ max_video_width: 0, max_video_height: 1080, max_video_pixels: 2073600, max_image_pixels: 1 }, 'input.media_limits.max_video_width must be a positive number'],
    [{ max_video_width: 1920, max_video_height: 1080, max_video_pixels: 2073600 }, 'input.media_limits.max_image_pixels is required'],
    [{ max_video_width: 1920, max_video_height: 1080, max_video_pixels: 2073600, max_video_fps: -1, max_image_pixels: 1 }, 'input.media_limits.max_video_fps must be a positive number'],
    ['big', 'input.media_limits must be an object'],
  ])('refuses media_limits %j with 400', async (media_limits, error) => {
    const { status, json } = await call('POST', '/run', runRequest({ media_limits } as unknown as Partial<RunRequest['input']>));
    expect(status).toBe(400);
    expect(json).toEqual({ error });
  });

  it('forgets a finished run after WORKER_RESULT_TTL_SECONDS: 404', async () => {
    const id = await submit(runRequest());
    await finalStatus(id);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    expect((await call('GET', `/status/${id}`)).status).toBe(404);
  });

  // last: the cancelled runs it leaves in the line are dropped only as the worker takes them, and
  // until then the line refuses runs, which would leave later tests refused
  (Object.keys(queueEnv).length > 0 ? it : it.skip)('bounds the line with its cancelled runs in a durable queue (the in-memory one drops them at once)', async () => {
    pool.mode = 'hold';
    const engineRuns = pool.started.length;
    const running = await submit(runRequest());
    await eventually(async () => (pool.started.length > engineRuns ? true : undefined));
    let taken = 0;
    for (; taken < 10; taken++) {
      const sent = await call('POST', '/run', runRequest());
      if (sent.status === 429) break;
      await call('POST', `/cancel/${sent.json.id}`);
    }
    expect(taken).toBe(4); // twice the room: one slot and one place in the line
    await call('POST', `/cancel/${running}`);
  });
});
