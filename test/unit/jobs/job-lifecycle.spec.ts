import { Logger } from '@nestjs/common';
import { Readable } from 'node:stream';
import { jobsWorld } from '../support/jobs-world';

const KEY = 'key_a';
const HOOK = 'https://hooks.example.com/backdrop';

/** A started upload job of a 10 s video (reserve: 8 credits at 45 a minute), picked up by a worker. */
async function processingJob(world: ReturnType<typeof jobsWorld>, credits = 100) {
  await world.ledger.grant(KEY, credits, null);
  const body = await world.uploads.storeBody(Readable.from([Buffer.from('a video')]), 'video/mp4');
  const { video_url } = await world.uploads.register(KEY, 'clip.mp4', body);
  const pending = await world.service.create({ apiKeyId: KEY, videoUrl: video_url, request: { model: 'light' }, webhookUrl: HOOK, autoStart: true });
  const processing = await world.lifecycle.pickUp(pending);
  if (!processing) throw new Error('the job was not picked up');
  return processing;
}

const events = (world: ReturnType<typeof jobsWorld>) => world.outbox.all().map((delivery) => delivery.event);

describe('JobLifecycle on in-memory adapters: billing, events and webhooks move together', () => {
  it('completion charges the processed seconds, records them, and writes job.completed in the same transaction', async () => {
    const world = jobsWorld();
    const job = await processingJob(world);
    await world.lifecycle.complete(job, { outputKey: `outputs/${job.id}.webm`, durationSeconds: 30, frames: 750, notes: [] });
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'completed', billingStatus: 'charged', chargedCredits: 8 }); // 30 s costs 23, capped at the 8 reserved
    expect(await world.ledger.balance(KEY)).toBe(92);
    expect(world.events.events.filter((event) => event.jobId === job.id).map((event) => [event.kind, event.seconds ?? null, event.credits ?? null])).toEqual([
      ['created', null, null],
      ['started', null, null],
      ['completed', 30, 8],
    ]);
    expect(events(world)).toEqual(['job.started', 'job.completed']);
    expect(world.deliveries.queued().map((delivery) => delivery.attempts)).toEqual([0, 0]);
  });

  it('a completion whose webhook cannot be written rolls back: no charge, no event, the job still processing', async () => {
    const world = jobsWorld();
    const job = await processingJob(world);
    const add = world.outbox.add.bind(world.outbox);
    world.outbox.add = async (delivery) => {
      if (delivery.event === 'job.completed') throw new Error('the outbox is down');
      return add(delivery);
    };
    await expect(world.lifecycle.complete(job, { outputKey: `outputs/${job.id}.webm`, durationSeconds: 4, notes: [] })).rejects.toThrow('the outbox is down');
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'processing', billingStatus: 'reserved', chargedCredits: null });
    expect(await world.ledger.balance(KEY)).toBe(92);
    expect(world.events.events.map((event) => event.kind)).not.toContain('completed');
    expect(world.metrics.jobs).toEqual([]);
  });

  it('a failure gives the whole reserve back, records failed and announces job.failed', async () => {
    const world = jobsWorld();
    const job = await processingJob(world);
    await world.lifecycle.fail(job, 'worker_failed', 'the worker crashed');
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'failed', errorCode: 'worker_failed', billingStatus: 'refunded' });
    expect(await world.ledger.balance(KEY)).toBe(100);
    expect(events(world)).toEqual(['job.started', 'job.failed']);
    expect(world.metrics.jobs.map((observed) => observed.status)).toEqual(['failed']);
  });

  it('a job that ends is logged with its id and, when failed, its code and reason: a warning where the service is at fault, not where the input or the client is (a failure left no line but worker_failed)', async () => {
    const world = jobsWorld();
    const info = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const [broken, faulty, done] = [await processingJob(world), await processingJob(world), await processingJob(world)];
      await world.lifecycle.fail(broken, 'input_invalid', 'no video stream');
      await world.lifecycle.fail(faulty, 'model_unavailable', 'inference failed');
      await world.lifecycle.complete(done, { outputKey: `outputs/${done.id}.webm`, durationSeconds: 4, frames: 100, notes: [] });
      expect(warn.mock.calls.map(([line]) => line)).toEqual([`job ${faulty.id} failed (model_unavailable): inference failed`]);
      const lines = info.mock.calls.map(([line]) => String(line));
      expect(lines).toContain(`job ${broken.id} failed (input_invalid): no video stream`);
      expect(lines.find((line) => line.startsWith(`job ${done.id} completed: light, 100 frames, 4.00 s of video`))).toBeDefined();
      expect(world.metrics.jobs.map(({ status, errorCode }) => [status, errorCode])).toEqual([['failed', 'input_invalid'], ['failed', 'model_unavailable'], ['completed', undefined]]);
    } finally {
      info.mockRestore();
      warn.mockRestore();
    }
  });

  it('a second completion of the same job loses the compare-and-set and charges nothing more', async () => {
    const world = jobsWorld();
    const job = await processingJob(world);
    await world.lifecycle.complete(job, { outputKey: `outputs/${job.id}.webm`, durationSeconds: 4, notes: [] });
    await expect(world.lifecycle.complete(job, { outputKey: `outputs/${job.id}.webm`, durationSeconds: 10, notes: [] })).rejects.toMatchObject({ code: 'invalid_state' });
    expect(await world.ledger.balance(KEY)).toBe(97);
    expect(events(world).filter((event) => event === 'job.completed')).toHaveLength(1);
  });

  it('cancel is refused for a job that has ended', async () => {
    const world = jobsWorld();
    const job = await processingJob(world);
    await world.lifecycle.complete(job, { outputKey: `outputs/${job.id}.webm`, durationSeconds: 4, notes: [] });
    const done = await world.jobs.findById(job.id);
    await expect(world.lifecycle.cancel(done!)).rejects.toMatchObject({ code: 'invalid_state' });
    expect(await world.ledger.balance(KEY)).toBe(97);
  });
});
