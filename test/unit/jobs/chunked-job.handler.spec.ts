import { Readable } from 'node:stream';
import { InMemoryOutboundHttp } from '../../../src/common/in-memory.outbound-http';
import { OutboundHttp } from '../../../src/common/outbound-http';
import { InMemoryVideoProbe } from '../../../src/modules/uploads/adapters/in-memory/in-memory.video-probe';
import { VideoProbe } from '../../../src/modules/uploads/ports/video-probe';
import { startInMemoryApp } from '../../support/in-memory-app';
import { eventually, swap } from '../../support/test-app';
import { InMemoryChunkDispatcher } from '../../../src/modules/jobs/adapters/in-memory/in-memory.chunk-dispatcher';
import { ChunkTask } from '../../../src/modules/jobs/ports/chunk-dispatcher';
import { JoinChunksRequest } from '../../../src/modules/jobs/ports/chunk-joiner';
import { InMemoryChunkJoiner } from '../../../src/modules/jobs/adapters/in-memory/in-memory.chunk-joiner';
import { ChunkedJobHandler } from '../../../src/modules/jobs/application/chunked-job.handler';
import { HandedBack } from '../../../src/modules/jobs/application/handed-back';
import { ProcessJobHandler } from '../../../src/modules/jobs/application/process-job.handler';
import { MAX_CHUNKS_PER_JOB, planChunks } from '../../../src/modules/jobs/domain/chunk-plan';
import { segmentFrames } from '../../../src/engine/chunks/segment';
import { FakeWorkerGateway } from '../../support/fake-worker-gateway';
import { jobsWorld, TenSecondProbe } from '../support/jobs-world';

const KEY = 'key_a';
const VIDEO = 'https://videos.example.com/clip.mp4';

/** A 10 s input with 4 s chunks: 3 chunks of 3.333 s. `probe` is the one the handler probes fetched inputs with. */
function chunking(probe: VideoProbe = new TenSecondProbe()) {
  const world = jobsWorld({ CHUNK_SECONDS: '4', CHUNK_PREROLL_SECONDS: '1' });
  const gateway = new FakeWorkerGateway(world.storage);
  const dispatcher = new InMemoryChunkDispatcher();
  const joiner = new InMemoryChunkJoiner(world.storage);
  const chunked = new ChunkedJobHandler(world.jobs, world.lifecycle, gateway, joiner, dispatcher, world.storage, world.config);
  const handler = new ProcessJobHandler(world.jobs, world.lifecycle, probe, gateway, world.storage, world.uploads, world.outbound, chunked, world.config);
  world.outbound.serve(VIDEO, 'the bytes of a video');
  const split = async (request = {}) => {
    await world.ledger.grant(KEY, 100, null);
    const job = await world.service.create({ apiKeyId: KEY, videoUrl: VIDEO, request: { model: 'light', ...request }, autoStart: true });
    await handler.handle(job.id);
    return { job, flow: dispatcher.flows.get(job.id) };
  };
  /** split, then every chunk run: what the join is handed */
  const splitAndRun = async (request = {}) => {
    const { job, flow } = await split(request);
    const outcomes = [];
    for (const chunk of flow!.chunks) outcomes.push(await chunked.runChunk(chunk));
    return { job, flow, outcomes };
  };
  return { ...world, gateway, dispatcher, joiner, chunked, handler, split, splitAndRun };
}

describe('planChunks', () => {
  it('cuts into as few equal chunks as keep each within the length; the first has no pre-roll, the last runs to the end', () => {
    expect(planChunks(10, null, 4, 1)).toEqual([
      { startSeconds: 0, endSeconds: 3.333, prerollSeconds: 0, share: 100 / 3 },
      { startSeconds: 3.333, endSeconds: 6.667, prerollSeconds: 1, share: 100 / 3 },
      { startSeconds: 6.667, endSeconds: undefined, prerollSeconds: 1, share: 100 / 3 },
    ]);
  });

  it('keeps a job at or within the length whole, cuts one just over it in two, and plans a preview by its own length', () => {
    expect(planChunks(4, null, 4, 1)).toBeNull();
    expect(planChunks(4.01, null, 4, 1)).toHaveLength(2);
    expect(planChunks(600, 3, 4, 1)).toBeNull();
    expect(planChunks(600, 9, 4, 1)).toHaveLength(3);
    expect(planChunks(600, null, 0, 1)).toBeNull();
  });

  it('cuts a slideshow so that every chunk holds a frame (one picture every 20 s made chunks holding none, and the job failed), and keeps one too sparse to cut whole', () => {
    const slideshow = planChunks(160, null, 15, 1, 1 / 20);
    expect(slideshow).toHaveLength(4);
    for (const chunk of slideshow!) {
      const { window } = segmentFrames(chunk, 1 / 20);
      expect((window.end ?? 8) - window.start).toBeGreaterThanOrEqual(1);
    }
    expect(planChunks(160, null, 15, 1)).toHaveLength(11); // the frame rate unknown (an upload made before it was kept): by seconds
    expect(planChunks(30, null, 15, 1, 1 / 10)).toBeNull();
    expect(planChunks(600, null, 15, 1, 30)).toHaveLength(40);
  });

  it(`cuts a job into at most ${MAX_CHUNKS_PER_JOB} chunks, longer ones where the length would make more (an hour at 1 s made 3,600)`, () => {
    const hour = planChunks(3600, null, 1, 1);
    expect(hour).toHaveLength(MAX_CHUNKS_PER_JOB);
    expect(hour![1].startSeconds).toBe(7.2);
    expect(planChunks(MAX_CHUNKS_PER_JOB, null, 1, 1)).toHaveLength(MAX_CHUNKS_PER_JOB);
  });
});

describe('ChunkedJobHandler on in-memory adapters', () => {
  it('splits a long job into a flow and leaves it processing, its input kept for the chunks', async () => {
    const world = chunking();
    const { job, flow } = await world.split();
    expect(flow?.chunks.map((chunk) => [chunk.index, chunk.segment.startSeconds, chunk.chunkKey])).toEqual([
      [0, 0, `chunks/${job.id}/0.webm`],
      [1, 3.333, `chunks/${job.id}/1.webm`],
      [2, 6.667, `chunks/${job.id}/2.webm`],
    ]);
    expect(flow?.join.chunkKeys).toEqual(flow?.chunks.map((chunk) => chunk.chunkKey));
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'processing', reservedCredits: 8 });
    expect(world.gateway.tasks).toEqual([]);
    expect(await world.storage.stat(`inputs/${job.id}`)).not.toBeNull();
  });

  it('keeps a pro job whose prompt has attributes on one task (decided from the whole clip); a prompt naming classes alone is split', async () => {
    const world = chunking();
    world.gateway.succeedWith(10);
    const whole = await world.split({ model: 'pro', text_prompt: 'the person wearing red jacket' });
    expect(whole.flow).toBeUndefined();
    expect(world.gateway.tasks.map((task) => [task.settings.textPrompt, task.segment])).toEqual([['the person wearing red jacket', undefined]]);
    expect(await world.jobs.findById(whole.job.id)).toMatchObject({ status: 'completed', durationSeconds: 10 });
    for (const prompt of ['the two people on the left', 'the largest dog']) expect((await world.split({ model: 'pro', text_prompt: prompt })).flow).toBeUndefined();
    expect((await world.split({ model: 'pro', text_prompt: 'person, dog' })).flow?.chunks).toHaveLength(3);
    expect((await world.split({ model: 'pro' })).flow?.chunks).toHaveLength(3);
  });

  it('runs the chunks, sums their progress, and the join completes the job once with one charge for all of it', async () => {
    const world = chunking();
    world.gateway.succeedWith(10 / 3);
    const { job, flow, outcomes } = await world.splitAndRun({ output_format: 'gif' });
    expect(world.gateway.tasks.map((task) => [task.settings.outputFormat, task.segment?.prerollSeconds])).toEqual([
      ['mov', 0],
      ['mov', 1],
      ['mov', 1],
    ]);
    expect((await world.jobs.findById(job.id))?.progress).toBe(99);
    await world.chunked.join(flow!.join, outcomes.reverse());
    expect(world.joiner.joined[0]).toMatchObject({ chunkKeys: flow!.join.chunkKeys, outputKey: `outputs/${job.id}.gif` });
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'completed', durationSeconds: 10, chargedCredits: 8, progress: 100 });
    expect(await world.ledger.balance(KEY)).toBe(92);
    await world.chunked.join(flow!.join, outcomes);
    expect(world.joiner.joined).toHaveLength(1);
    for (const key of [...flow!.join.chunkKeys, `inputs/${job.id}`]) expect(await world.storage.stat(key)).toBeNull();
  });

  it('a job canceled while its chunks were joined is not completed; its output goes with the chunks', async () => {
    const world = chunking();
    const { job, flow, outcomes } = await world.splitAndRun();
    const join = world.joiner.join.bind(world.joiner);
    world.joiner.join = async (request) => {
      await join(request);
      await world.lifecycle.cancel((await world.jobs.findById(job.id))!);
    };
    await world.chunked.join(flow!.join, outcomes);
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'failed', errorCode: 'canceled' });
    for (const key of [...flow!.join.chunkKeys, `outputs/${job.id}.webm`]) expect(await world.storage.stat(key)).toBeNull();
  });

  it('the database away as the join ends: the joined job is recorded completed once it is back, charged once, its output kept (it was failed)', async () => {
    const world = chunking();
    world.chunked.completionRetryDelaysMs = [0, 0, 0, 0];
    world.gateway.succeedWith(10 / 3);
    const { job, flow, outcomes } = await world.splitAndRun();
    const readJob = world.jobs.findById.bind(world.jobs);
    let away = 0;
    const join = world.joiner.join.bind(world.joiner);
    world.joiner.join = async (request) => {
      await join(request);
      away = 3; // the next three reads of the job fail
    };
    jest.spyOn(world.jobs, 'findById').mockImplementation(async (id) => {
      if (away > 0) {
        away -= 1;
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      }
      return readJob(id);
    });
    await world.chunked.join(flow!.join, outcomes);
    expect(await readJob(job.id)).toMatchObject({ status: 'completed', chargedCredits: 8 });
    expect(await world.storage.stat(`outputs/${job.id}.webm`)).not.toBeNull();
    expect(world.joiner.joined).toHaveLength(1);
  });

  it('a join that ran out of attempts after making its output fails the job and removes the output, which no job names', async () => {
    const world = chunking();
    const { job, flow, outcomes } = await world.splitAndRun();
    const join = world.joiner.join.bind(world.joiner);
    world.joiner.join = async (request) => {
      await join(request);
      throw new Error('the join was lost after its upload');
    };
    await expect(world.chunked.join(flow!.join, outcomes)).rejects.toThrow(/lost/);
    expect(await world.storage.stat(`outputs/${job.id}.webm`)).not.toBeNull();
    await world.chunked.joinGaveUp(flow!.join, new Error('the join was lost after its upload'));
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'failed', errorCode: 'worker_failed', billingStatus: 'refunded' });
    for (const key of [...flow!.join.chunkKeys, `outputs/${job.id}.webm`]) expect(await world.storage.stat(key)).toBeNull();
  });

  it('a chunk failing for a reason that would not change fails the job at once; the other chunks and the join do nothing', async () => {
    const world = chunking();
    const { job, flow } = await world.split();
    world.gateway.failWith('input_invalid', 'broken frame');
    expect(await world.chunked.runChunk(flow!.chunks[1])).toBeNull();
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'failed', errorCode: 'input_invalid', billingStatus: 'refunded' });
    world.gateway.succeedWith(3);
    expect(await world.chunked.runChunk(flow!.chunks[2])).toBeNull();
    expect(world.gateway.tasks).toHaveLength(1);
    await world.chunked.join(flow!.join, [null]);
    expect(world.joiner.joined).toEqual([]);
    expect(await world.storage.stat(`inputs/${job.id}`)).toBeNull();
  });

  it('a chunk failing otherwise is handed back for a retry, its progress kept (the bar never goes back) and counted once when retried; giving up fails the job once', async () => {
    const world = chunking();
    const { job, flow } = await world.split();
    const share = flow!.chunks[0].share;
    world.gateway.failWith('worker_failed', 'engine crashed');
    await expect(world.chunked.runChunk(flow!.chunks[0])).rejects.toThrow('engine crashed');
    // the failed attempt got to 10% of its chunk
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'processing', progress: expect.closeTo(share / 10, 5) });
    world.gateway.succeedWith(4);
    await world.chunked.runChunk(flow!.chunks[0]);
    expect((await world.jobs.findById(job.id))?.progress).toBeCloseTo(share, 5);
    world.gateway.failWith('worker_failed', 'engine crashed');
    await world.chunked.chunkGaveUp(flow!.chunks[0], new Error('engine crashed'));
    await world.chunked.chunkGaveUp(flow!.chunks[0], new Error('engine crashed'));
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'failed', errorCode: 'worker_failed' });
    expect(world.events.events.filter((event) => event.jobId === job.id && event.kind === 'failed')).toHaveLength(1);
  });

  it.each([
    ['by their count (as this version writes them)', (chunk: ChunkTask): ChunkTask => chunk],
    ['by every key alone (as versions before wrote them)', (chunk: ChunkTask): ChunkTask => ({ ...chunk, chunksInFlow: undefined as unknown as number, flowChunkKeys: Array.from({ length: 3 }, (_, index) => chunk.chunkKey.replace(/\/\d+\./, `/${index}.`)) })],
  ])("a chunk giving up removes every chunk's output of its job, named %s; a chunk's message no longer carries every key (the flow grew with the square of its chunks)", async (_, asQueued) => {
    const world = chunking();
    const { job, flow } = await world.split();
    const keys = flow!.join.chunkKeys;
    for (const key of keys) await world.storage.put(key, Readable.from(Buffer.from('chunk')));
    expect(flow!.chunks[1]).toMatchObject({ chunksInFlow: 3 });
    expect(flow!.chunks[1].flowChunkKeys).toBeUndefined();
    await world.chunked.chunkGaveUp(asQueued(flow!.chunks[1]), new Error('engine crashed'));
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'failed', errorCode: 'worker_failed' });
    for (const key of keys) expect([key, await world.storage.stat(key)]).toEqual([key, null]);
  });

  it('keeps a fetched video whole where chunks could not each hold a frame (a slideshow of 10 s at one picture every 3 s)', async () => {
    const slideshow = new (class extends TenSecondProbe {
      override async probe() {
        return { durationSeconds: 10, frameRate: 1 / 3, width: 640, height: 360 };
      }
    })();
    const world = chunking(slideshow);
    world.gateway.succeedWith(10);
    const { job, flow } = await world.split();
    expect(flow).toBeUndefined();
    expect(world.gateway.tasks.map((task) => task.segment)).toEqual([undefined]);
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'completed' });
  });

  it('splits an upload by the duration stored when it was uploaded, without probing the file again', async () => {
    // the handler's probe knows no file: a second probe of the upload would refuse it and keep the job whole
    const world = chunking(new InMemoryVideoProbe());
    await world.ledger.grant(KEY, 100, null);
    const stored = await world.uploads.storeBody(Readable.from([Buffer.from('the bytes of an upload')]), 'video/mp4');
    await world.uploads.register(KEY, 'clip.mp4', stored);
    const job = await world.service.create({ apiKeyId: KEY, videoUrl: world.uploads.videoUrlOf(stored.uploadId), request: { model: 'light' }, autoStart: true });
    await world.handler.handle(job.id);
    expect(world.dispatcher.flows.get(job.id)?.chunks.map((chunk) => chunk.inputKey)).toEqual([stored.storageKey, stored.storageKey, stored.storageKey]);
  });

  it('a chunk stopped by the worker\'s shutdown is handed back (HandedBack: no attempt spent), not failed', async () => {
    const world = chunking();
    const { job, flow } = await world.split();
    world.gateway.hold();
    const running = world.chunked.runChunk(flow!.chunks[0]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    world.chunked.beginShutdown(0);
    await expect(running).rejects.toBeInstanceOf(HandedBack);
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'processing', progress: expect.closeTo(flow!.chunks[0].share / 10, 5) });
  });

  it("a join stopped by the worker's shutdown is handed back (no attempt spent), its chunks and input kept for its next run", async () => {
    const world = chunking();
    const { job, flow, outcomes } = await world.splitAndRun();
    world.joiner.join = (_request: JoinChunksRequest, signal?: AbortSignal) =>
      new Promise<void>((_resolve, reject) => signal?.addEventListener('abort', () => reject(new Error('ffmpeg was stopped')), { once: true }));
    const joining = world.chunked.join(flow!.join, outcomes);
    await new Promise((resolve) => setTimeout(resolve, 20));
    world.chunked.beginShutdown(0);
    await expect(joining).rejects.toBeInstanceOf(HandedBack);
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'processing' });
    for (const key of [...flow!.join.chunkKeys, `inputs/${job.id}`]) expect([key, await world.storage.stat(key)]).toEqual([key, expect.anything()]);
  });

  it('a chunk whose job is canceled while it runs leaves no output behind (what a remote worker stored meanwhile)', async () => {
    const world = chunking();
    const { job, flow } = await world.split();
    world.gateway.hold();
    const running = world.chunked.runChunk(flow!.chunks[0]);
    await eventually(async () => world.gateway.tasks.length > 0 || undefined, 2000, 5);
    await world.storage.put(flow!.chunks[0].chunkKey, Readable.from(Buffer.from('stored by a remote worker')));
    await world.service.cancel(KEY, job.id);
    expect(await running).toBeNull();
    expect(await world.storage.stat(flow!.chunks[0].chunkKey)).toBeNull();
  });

  it('a canceled job\'s chunks never reach a worker', async () => {
    const world = chunking();
    const { job, flow } = await world.split();
    await world.service.cancel(KEY, job.id);
    expect(await world.chunked.runChunk(flow!.chunks[0])).toBeNull();
    expect(world.gateway.tasks).toEqual([]);
  });
});

describe('long jobs in chunks through the whole API in memory', () => {
  it('splits, runs every chunk on the worker, joins and completes the job once', async () => {
    const clip = Buffer.from('the bytes of a 30-second clip');
    const internet = new InMemoryOutboundHttp().serve('https://videos.example.com/long.mp4', clip);
    const probe = new InMemoryVideoProbe().knowVideo(clip, { durationSeconds: 30, width: 640, height: 360 });
    const t = await startInMemoryApp({ CHUNK_SECONDS: '10' }, { adapters: [swap(OutboundHttp, internet), swap(VideoProbe, probe)] });
    try {
      const key = await t.createKey(100);
      const created = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: 'https://videos.example.com/long.mp4', model: 'light' });
      const job = await eventually(async () => {
        const read = (await t.http.get(`/v1/jobs/${created.body.id}`).set('X-Api-Key', key)).body;
        return read.status === 'completed' ? read : undefined;
      }, 5000, 5);
      expect(t.fake.tasks.map((task) => task.segment?.startSeconds)).toEqual([0, 10, 20]);
      expect(job).toMatchObject({ progress: 100, duration_seconds: 12, billing_status: 'charged' });
      const download = await fetch(job.output_url);
      expect(Buffer.from(await download.arrayBuffer()).equals(Buffer.concat([clip, clip, clip]))).toBe(true);
    } finally {
      await t.close();
    }
  });
});
