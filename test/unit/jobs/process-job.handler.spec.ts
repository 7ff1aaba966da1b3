import { Readable } from 'node:stream';
import { FAIR_SHARE_WAIT_MS, ProcessJobHandler } from '../../../src/modules/jobs/application/process-job.handler';
import { HandedBack } from '../../../src/modules/jobs/application/handed-back';
import { ChunkedJobHandler } from '../../../src/modules/jobs/application/chunked-job.handler';
import { InMemoryChunkDispatcher } from '../../../src/modules/jobs/adapters/in-memory/in-memory.chunk-dispatcher';
import { InMemoryChunkJoiner } from '../../../src/modules/jobs/adapters/in-memory/in-memory.chunk-joiner';
import { FakeWorkerGateway } from '../../support/fake-worker-gateway';
import { jobsWorld, TenSecondProbe } from '../support/jobs-world';
import { eventually } from '../../support/test-app';
import { InMemoryUnitOfWork } from '../../../src/common/in-memory.unit-of-work';

const KEY = 'key_a';
const VIDEO = 'https://videos.example.com/clip.mp4';

/** ProcessJobHandler on the in-memory jobs world, with the scriptable fake WorkerGateway. */
function processing(env: Record<string, string> = {}) {
  const world = jobsWorld(env);
  const gateway = new FakeWorkerGateway(world.storage);
  const flows = new InMemoryChunkDispatcher();
  const chunked = new ChunkedJobHandler(world.jobs, world.lifecycle, gateway, new InMemoryChunkJoiner(world.storage), flows, world.storage, world.config);
  const handler = new ProcessJobHandler(world.jobs, world.lifecycle, new TenSecondProbe(), gateway, world.storage, world.uploads, world.outbound, chunked, world.config);
  world.outbound.serve(VIDEO, 'the bytes of a video');
  const queued = (request = {}) => world.service.create({ apiKeyId: KEY, videoUrl: VIDEO, request: { model: 'light', ...request }, autoStart: true });
  return { ...world, gateway, flows, chunked, handler, queued };
}

describe('ProcessJobHandler on in-memory adapters', () => {
  it('fetches a URL input, reserves its probed cost, runs the worker, charges what it processed and cleans the fetched input up', async () => {
    const world = processing();
    await world.ledger.grant(KEY, 100, null);
    world.gateway.succeedWith(4);
    const job = await world.queued();
    await world.handler.handle(job.id);
    const done = await world.jobs.findById(job.id);
    expect(done).toMatchObject({ status: 'completed', outputKey: `outputs/${job.id}.webm`, durationSeconds: 4, chargedCredits: 3, reservedCredits: 8 });
    expect(await world.ledger.balance(KEY)).toBe(97);
    expect(world.gateway.tasks.map((task) => task.inputKey)).toEqual([`inputs/${job.id}`]);
    expect(await world.storage.stat(`inputs/${job.id}`)).toBeNull();
    expect(await world.storage.stat(`outputs/${job.id}.webm`)).not.toBeNull();
  });

  it('a job the queue gives up on after its input was fetched is failed, and its fetched input removed (it stayed in storage for good)', async () => {
    const world = processing();
    await world.ledger.grant(KEY, 100, null);
    const job = await world.queued();
    jest.spyOn(world.storage, 'withLocalFile').mockRejectedValue(Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:9000'), { code: 'ECONNREFUSED' }));
    await expect(world.handler.handle(job.id)).rejects.toThrow(/ECONNREFUSED/);
    expect(await world.storage.stat(`inputs/${job.id}`)).not.toBeNull();
    await world.handler.abandon(job.id, 'the storage stayed away');
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'failed', errorCode: 'worker_failed' });
    expect(await world.storage.stat(`inputs/${job.id}`)).toBeNull();
  });

  it('a job canceled as its output was stored is not completed, and that output goes (it stayed, named by no job)', async () => {
    const world = processing();
    await world.ledger.grant(KEY, 100, null);
    const job = await world.queued();
    const process = world.gateway.process.bind(world.gateway);
    world.gateway.process = async (task, onProgress, signal) => {
      const outcome = await process(task, onProgress, signal);
      await world.lifecycle.cancel((await world.jobs.findById(job.id))!);
      return outcome;
    };
    await world.handler.handle(job.id);
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'failed', errorCode: 'canceled', billingStatus: 'refunded' });
    expect(await world.storage.stat(`outputs/${job.id}.webm`)).toBeNull();
    expect(await world.ledger.balance(KEY)).toBe(100);
  });

  it('a worker failure fails the job with its code and gives the reserve back', async () => {
    const world = processing();
    await world.ledger.grant(KEY, 100, null);
    world.gateway.failWith('input_invalid', 'not a video');
    const job = await world.queued();
    await world.handler.handle(job.id);
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'failed', errorCode: 'input_invalid', billingStatus: 'refunded' });
    expect(await world.ledger.balance(KEY)).toBe(100);
  });

  it('a fetched video over MAX_VIDEO_SECONDS fails input_too_long once probed: nothing reserved, not cut into chunks, the worker not run, the fetched file deleted; a preview of its start goes on', async () => {
    const world = processing({ MAX_VIDEO_SECONDS: '9', CHUNK_SECONDS: '2' }); // the probe says 10 s
    await world.ledger.grant(KEY, 100, null);
    const job = await world.queued();
    await world.handler.handle(job.id);
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'failed', errorCode: 'input_too_long', reservedCredits: null });
    expect((await world.jobs.findById(job.id))?.error).toContain('over the 9 s limit');
    expect(await world.ledger.balance(KEY)).toBe(100);
    expect(world.gateway.tasks).toEqual([]);
    expect(await world.storage.stat(`inputs/${job.id}`)).toBeNull();
    expect(world.flows.flows.size).toBe(0);
    const preview = await world.queued({ preview_duration: 4 });
    await world.handler.handle(preview.id);
    expect(world.flows.flows.get(preview.id)?.chunks).toHaveLength(2);
  });

  it('a fetched video exactly MAX_VIDEO_SECONDS long is processed', async () => {
    const world = processing({ MAX_VIDEO_SECONDS: '10' }); // the probe says 10 s
    await world.ledger.grant(KEY, 100, null);
    const job = await world.queued();
    world.gateway.succeedWith(10);
    await world.handler.handle(job.id);
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'completed' });
    expect(world.gateway.tasks).toHaveLength(1);
  });

  it('an upload stored before uploads kept their duration, over MAX_VIDEO_SECONDS: input_too_long once probed, nothing reserved first', async () => {
    const world = processing({ MAX_VIDEO_SECONDS: '9' }); // the probe says 10 s
    await world.ledger.grant(KEY, 100, null);
    const body = await world.uploads.storeBody(Readable.from([Buffer.from('not really a video')]), 'video/mp4');
    await world.uploadRows.insert({ id: body.uploadId, apiKeyId: KEY, storageKey: body.storageKey, filename: 'old.mp4', size: body.size, contentType: 'video/mp4', durationSeconds: null, createdAt: new Date() });
    const job = await world.service.create({ apiKeyId: KEY, videoUrl: world.uploads.videoUrlOf(body.uploadId), request: { model: 'light' }, autoStart: true });
    await world.handler.handle(job.id);
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'failed', errorCode: 'input_too_long', reservedCredits: null, billingStatus: null });
    expect(await world.ledger.balance(KEY)).toBe(100);
    expect(await world.storage.stat(body.storageKey)).not.toBeNull(); // the upload stays: it is the client's, not the job's
  });

  it('an upload started under a longer MAX_VIDEO_SECONDS (the API set apart from this worker): input_too_long by its stored duration, its reserve given back, no chunks', async () => {
    const world = processing({ CHUNK_SECONDS: '2' }); // the upload's probe said 10 s
    await world.ledger.grant(KEY, 100, null);
    const body = await world.uploads.storeBody(Readable.from([Buffer.from('not really a video')]), 'video/mp4');
    const { video_url: videoUrl } = await world.uploads.register(KEY, 'clip.mp4', body);
    const job = await world.service.create({ apiKeyId: KEY, videoUrl, request: { model: 'light' }, autoStart: true });
    world.config.env.MAX_VIDEO_SECONDS = 9;
    await world.handler.handle(job.id);
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'failed', errorCode: 'input_too_long', billingStatus: 'refunded' });
    expect(await world.ledger.balance(KEY)).toBe(100);
    expect(world.flows.flows.size).toBe(0);
  });

  it('an input that cannot be fetched fails the job input_unreachable without running the worker', async () => {
    const world = processing();
    await world.ledger.grant(KEY, 100, null);
    const job = await world.service.create({ apiKeyId: KEY, videoUrl: 'https://videos.example.com/missing.mp4', request: {}, autoStart: true });
    await world.handler.handle(job.id);
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'failed', errorCode: 'input_unreachable' });
    expect(world.gateway.tasks).toEqual([]);
  });

  it('an upload the database cannot look up leaves the job to the queue\'s retry (thrown, still processing), not failed as a missing upload', async () => {
    const world = processing();
    await world.ledger.grant(KEY, 100, null);
    const stored = await world.uploads.storeBody(Readable.from([Buffer.from('the bytes of an upload')]), 'video/mp4');
    await world.uploads.register(KEY, 'clip.mp4', stored);
    const job = await world.service.create({ apiKeyId: KEY, videoUrl: world.uploads.videoUrlOf(stored.uploadId), request: { model: 'light' }, autoStart: true });

    world.uploadRows.failing = true;
    await expect(world.handler.handle(job.id)).rejects.toThrow('the database is down');
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'processing', errorCode: null });

    world.uploadRows.failing = false;
    world.gateway.succeedWith(4);
    await world.handler.handle(job.id);
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'completed' });
  });

  it('an upload whose file is gone from storage (storage restored older than the database) fails input_unreachable without running the worker, its reserve given back', async () => {
    const world = processing();
    await world.ledger.grant(KEY, 100, null);
    const stored = await world.uploads.storeBody(Readable.from([Buffer.from('the bytes of an upload')]), 'video/mp4');
    await world.uploads.register(KEY, 'clip.mp4', stored);
    const job = await world.service.create({ apiKeyId: KEY, videoUrl: world.uploads.videoUrlOf(stored.uploadId), request: { model: 'light' }, autoStart: true });
    await world.storage.delete(stored.storageKey);

    await world.handler.handle(job.id);
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'failed', errorCode: 'input_unreachable', error: 'The uploaded video is no longer in storage' });
    expect(world.gateway.tasks).toEqual([]);
    expect(await world.ledger.balance(KEY)).toBe(100);
  });

  it('a job handed over at shutdown keeps its fetched input, which its next attempt reads without fetching it again (a remote run left going may still read it)', async () => {
    const world = processing();
    await world.ledger.grant(KEY, 100, null);
    const job = await world.queued();
    const fetches = jest.spyOn(world.outbound, 'fetchStream');
    world.gateway.hold();
    const first = world.handler.handle(job.id);
    await eventually(async () => (world.gateway.tasks.length === 1 ? true : undefined));
    world.handler.beginShutdown(0);
    await expect(first).rejects.toThrow(/handed back/);
    expect(await world.storage.stat(`inputs/${job.id}`)).not.toBeNull();
    world.gateway.succeedWith(4);
    const next = new ProcessJobHandler(world.jobs, world.lifecycle, new TenSecondProbe(), world.gateway, world.storage, world.uploads, world.outbound, world.chunked, world.config);
    await next.handle(job.id);
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'completed' });
    expect(fetches).toHaveBeenCalledTimes(1);
    expect(await world.storage.stat(`inputs/${job.id}`)).toBeNull();
  });

  it("a disabled key's jobs stop: one queued is canceled as it is picked up, one running is stopped, its reserve given back (they ran on to completion, charged, and nobody could cancel them)", async () => {
    const world = processing();
    const key = await world.keys.create({ clientId: 'c', note: null, keyHash: 'k'.repeat(64), fingerprint: 'f'.repeat(12), webhookSecret: null });
    await world.ledger.grant(key.id, 100, null);
    const queue = (apiKeyId: string) => world.service.create({ apiKeyId, videoUrl: VIDEO, request: { model: 'light' }, autoStart: true });
    const running = await queue(key.id);
    const waiting = await queue(key.id);
    world.gateway.hold();
    const handled = world.handler.handle(running.id);
    await eventually(async () => (world.gateway.tasks.length === 1 ? true : undefined));
    await world.keys.setEnabled(key.fingerprint, false);
    await handled;
    await world.handler.handle(waiting.id);
    const canceled = { status: 'failed', errorCode: 'canceled', error: 'Canceled: the API key was disabled' };
    expect(await world.jobs.findById(running.id)).toMatchObject({ ...canceled, billingStatus: 'refunded' });
    // a URL input is paid for once fetched: the job that waited never was
    expect(await world.jobs.findById(waiting.id)).toMatchObject({ ...canceled, billingStatus: null, reservedCredits: null });
    expect(world.gateway.tasks).toHaveLength(1);
    expect(await world.ledger.balance(key.id)).toBe(100);
  });

  it("a disabled key's job whose earlier attempt was handed over gives up what that attempt left running (a remote run went on to the end)", async () => {
    const world = processing();
    const key = await world.keys.create({ clientId: 'c', note: null, keyHash: 'k'.repeat(64), fingerprint: 'f'.repeat(12), webhookSecret: null });
    await world.ledger.grant(key.id, 100, null);
    const job = await world.service.create({ apiKeyId: key.id, videoUrl: VIDEO, request: { model: 'light' }, autoStart: true });
    await world.lifecycle.pickUp(job); // the attempt that died, its run left going
    await world.keys.setEnabled(key.fingerprint, false);
    await world.handler.handle(job.id);
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'failed', errorCode: 'canceled' });
    expect(world.gateway.givenUp).toEqual([{ jobId: job.id, outputKey: `outputs/${job.id}.webm` }]);
  });

  it('a job canceled while it was handed over gives up what its earlier attempt left running (a remote run)', async () => {
    const world = processing();
    await world.ledger.grant(KEY, 100, null);
    const job = await world.queued();
    await world.service.cancel(KEY, job.id);
    await world.handler.handle(job.id);
    expect(world.gateway.givenUp).toEqual([{ jobId: job.id, outputKey: `outputs/${job.id}.webm` }]);
  });

  it("signs the output's URL for the completion's webhook before the completion's transaction, which holds the key's ledger (signing may go over the network)", async () => {
    const world = processing();
    await world.ledger.grant(KEY, 100, null);
    const job = await world.queued();
    let open = 0;
    const signings: Array<'outside' | 'inside a transaction'> = [];
    const sign = world.storage.signedDownloadUrl.bind(world.storage);
    jest.spyOn(world.storage, 'signedDownloadUrl').mockImplementation((...args) => (signings.push(open > 0 ? 'inside a transaction' : 'outside'), sign(...args)));
    const run = InMemoryUnitOfWork.prototype.run;
    const transactions = jest.spyOn(InMemoryUnitOfWork.prototype, 'run').mockImplementation(async function (this: InMemoryUnitOfWork, ...args: Parameters<typeof run>) {
      open += 1;
      try {
        return await run.apply(this, args);
      } finally {
        open -= 1;
      }
    });
    try {
      await world.handler.handle(job.id);
    } finally {
      transactions.mockRestore();
    }
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'completed' });
    expect(signings).toEqual(['outside']);
  });

  it('a job already ended is left alone', async () => {
    const world = processing();
    await world.ledger.grant(KEY, 100, null);
    const job = await world.queued();
    await world.service.cancel(KEY, job.id);
    await world.handler.handle(job.id);
    expect(world.gateway.tasks).toEqual([]);
    expect((await world.jobs.findById(job.id))?.errorCode).toBe('canceled');
  });

  describe('the database away as the job ends', () => {
    const outage = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

    it('the finished work is recorded once the database is back: completed, charged once, the output kept (it was failed, or made again)', async () => {
      const world = processing();
      world.handler.completionRetryDelaysMs = [0, 0, 0, 0];
      await world.ledger.grant(KEY, 100, null);
      world.gateway.succeedWith(4);
      const job = await world.queued();
      const process = world.gateway.process.bind(world.gateway);
      const readJob = world.jobs.findById.bind(world.jobs);
      let away = 0;
      world.gateway.process = async (task, onProgress, signal) => {
        const outcome = await process(task, onProgress, signal);
        away = 3; // the next three reads of the job fail
        return outcome;
      };
      jest.spyOn(world.jobs, 'findById').mockImplementation(async (id) => {
        if (away > 0) {
          away -= 1;
          throw outage();
        }
        return readJob(id);
      });
      await world.handler.handle(job.id);
      expect(await readJob(job.id)).toMatchObject({ status: 'completed', outputKey: `outputs/${job.id}.webm`, chargedCredits: 3 });
      expect(await world.ledger.balance(KEY)).toBe(97);
      expect(await world.storage.stat(`outputs/${job.id}.webm`)).not.toBeNull();
      expect(world.gateway.tasks).toHaveLength(1);
    });

    it('a database that stays away: the message is handed back to the queue, not the job failed by this run', async () => {
      const world = processing();
      world.handler.completionRetryDelaysMs = [0, 0];
      await world.ledger.grant(KEY, 100, null);
      const job = await world.queued();
      const process = world.gateway.process.bind(world.gateway);
      const readJob = world.jobs.findById.bind(world.jobs);
      let away = false;
      world.gateway.process = async (task, onProgress, signal) => {
        const outcome = await process(task, onProgress, signal);
        away = true;
        return outcome;
      };
      jest.spyOn(world.jobs, 'findById').mockImplementation(async (id) => {
        if (away) throw outage();
        return readJob(id);
      });
      await expect(world.handler.handle(job.id)).rejects.toThrow(/could not be recorded/);
      expect(await readJob(job.id)).toMatchObject({ status: 'processing' });
    });
  });
});

describe('the fair share of the workers', () => {
  it("a key with its share of jobs processing lets another key's waiting job go first (its next job goes back to wait, no attempt spent); alone, it takes every worker", async () => {
    const world = processing({ FAIR_SHARE_JOBS_PER_KEY: '1' });
    for (const key of [KEY, 'key_b']) await world.ledger.grant(key, 100, null);
    world.gateway.succeedWith(4);
    const running = await world.queued();
    await world.jobs.transition(running.id, 'pending', { status: 'processing', startedAt: new Date() });

    const alone = await world.queued();
    await world.handler.handle(alone.id);
    expect((await world.jobs.findById(alone.id))?.status).toBe('completed');

    const next = await world.queued();
    const theirs = await world.service.create({ apiKeyId: 'key_b', videoUrl: VIDEO, request: { model: 'light' }, autoStart: true });
    const handedBack = await world.handler.handle(next.id).catch((error: unknown) => error);
    expect(handedBack).toBeInstanceOf(HandedBack);
    expect((handedBack as HandedBack).afterMs).toBe(FAIR_SHARE_WAIT_MS);
    expect((await world.jobs.findById(next.id))?.status).toBe('pending');

    await world.handler.handle(theirs.id);
    expect((await world.jobs.findById(theirs.id))?.status).toBe('completed');
    // nothing of another key waits now: its turn
    await world.handler.handle(next.id);
    expect((await world.jobs.findById(next.id))?.status).toBe('completed');
  });
});
