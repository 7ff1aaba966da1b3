import { Readable } from 'node:stream';
import { DomainError } from '../../../src/common/errors/domain-error';
import { jobsWorld } from '../support/jobs-world';

const KEY = 'key_a';
const PUBLIC_VIDEO = 'https://videos.example.com/clip.mp4';

async function rejection(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(() => undefined, (thrown: unknown) => thrown);
  if (!(error instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(error)}`);
  return error;
}

/** An upload of a 10 s video owned by `apiKeyId` (the world's probe says 10 s). */
async function uploaded(world: ReturnType<typeof jobsWorld>, apiKeyId = KEY): Promise<string> {
  const body = await world.uploads.storeBody(Readable.from([Buffer.from('not really a video')]), 'video/mp4');
  return (await world.uploads.register(apiKeyId, 'clip.mp4', body)).video_url;
}

describe('JobsService on in-memory adapters', () => {
  it('a draft is created, recorded and not queued', async () => {
    const world = jobsWorld();
    const job = await world.service.create({ apiKeyId: KEY, videoUrl: PUBLIC_VIDEO, request: { model: 'light' }, autoStart: false });
    expect((await world.jobs.findById(job.id))?.status).toBe('created');
    expect(world.events.events).toMatchObject([{ apiKeyId: KEY, jobId: job.id, kind: 'created' }]);
    expect(world.dispatcher.dispatched).toEqual([]);
  });

  it('a URL job starts at once, is queued, and reserves nothing until its duration is known', async () => {
    const world = jobsWorld();
    await world.ledger.grant(KEY, 5, null);
    const job = await world.service.create({ apiKeyId: KEY, videoUrl: PUBLIC_VIDEO, request: {}, webhookUrl: 'https://hooks.example.com/in', autoStart: true });
    expect(job.status).toBe('pending');
    expect(world.dispatcher.dispatched).toEqual([job.id]);
    expect((await world.jobs.findById(job.id))?.dispatchedAt).not.toBeNull();
    expect(await world.ledger.balance(KEY)).toBe(5);
    expect(world.outbox.all().map((delivery) => delivery.event)).toEqual(['job.started']);
    expect(world.deliveries.enqueued).toHaveLength(1);
  });

  it('a URL job on an empty balance is refused at its start, before its input is fetched: a draft stays a draft, auto_start stores it failed; one credit starts it', async () => {
    const world = jobsWorld();
    const draft = await world.service.create({ apiKeyId: KEY, videoUrl: PUBLIC_VIDEO, request: { model: 'light' }, autoStart: false });
    expect((await rejection(world.service.start(KEY, draft.id, { request: {} }))).code).toBe('insufficient_credits');
    expect((await world.jobs.findById(draft.id))?.status).toBe('created');
    const auto = await world.service.create({ apiKeyId: KEY, videoUrl: PUBLIC_VIDEO, request: { model: 'light' }, autoStart: true });
    expect(auto).toMatchObject({ status: 'failed', errorCode: 'insufficient_credits', billingStatus: 'insufficient_credits' });
    expect(world.dispatcher.dispatched).toEqual([]);
    await world.ledger.grant(KEY, 1, null);
    expect((await world.service.start(KEY, draft.id, { request: {} })).status).toBe('pending');
    expect(world.dispatcher.dispatched).toEqual([draft.id]);
    expect(await world.ledger.balance(KEY)).toBe(1);
  });

  it('starting an upload job with too few credits leaves the balance and the draft unchanged and answers insufficient_credits', async () => {
    const world = jobsWorld();
    await world.ledger.grant(KEY, 3, null); // a 10 s light job costs ceil(10 x 45 / 60) = 8
    const draft = await world.service.create({ apiKeyId: KEY, videoUrl: await uploaded(world), request: { model: 'light' }, autoStart: false });
    const error = await rejection(world.service.start(KEY, draft.id, { request: {} }));
    expect(error.code).toBe('insufficient_credits');
    expect(await world.ledger.balance(KEY)).toBe(3);
    expect((await world.jobs.findById(draft.id))?.status).toBe('created');
    expect(world.dispatcher.dispatched).toEqual([]);
  });

  it("a start is checked as the job it starts, the draft's settings under the overrides: mp4 over the draft's green or image is taken, mp4 over a transparent draft is not", async () => {
    const world = jobsWorld();
    await world.ledger.grant(KEY, 100, null); // a URL job's start needs a credit
    const green = await world.service.create({ apiKeyId: KEY, videoUrl: PUBLIC_VIDEO, request: { bg_type: 'green' }, autoStart: false });
    expect((await world.service.start(KEY, green.id, { request: { output_format: 'mp4' } })).status).toBe('pending');
    const image = await world.service.create({ apiKeyId: KEY, videoUrl: PUBLIC_VIDEO, request: { bg_image_url: 'https://images.example.com/bg.png' }, autoStart: false });
    expect((await world.service.start(KEY, image.id, { request: { bg_type: 'image', output_format: 'mp4' } })).status).toBe('pending');
    const transparent = await world.service.create({ apiKeyId: KEY, videoUrl: PUBLIC_VIDEO, request: {}, autoStart: false });
    const refused = await rejection(world.service.start(KEY, transparent.id, { request: { output_format: 'mp4' } }));
    expect(refused).toMatchObject({ code: 'invalid_request', details: [{ field: 'output_format' }] });
    expect((await world.jobs.findById(transparent.id))?.status).toBe('created');
  });

  it("a draft keeps what its start may still give (a colour or image to come, transparency over mp4), shows it pending, and its start completes it or refuses it as a job's create would", async () => {
    const world = jobsWorld();
    await world.ledger.grant(KEY, 100, null); // a URL job's start needs a credit
    const custom = await world.service.create({ apiKeyId: KEY, videoUrl: PUBLIC_VIDEO, request: { bg_type: 'custom' }, autoStart: false });
    expect(custom).toMatchObject({ status: 'created', settings: { background: { type: 'color', color: null } } });
    expect((await world.service.start(KEY, custom.id, { request: { bg_color: [0, 0, 255] } })).settings.background).toEqual({ type: 'color', color: [0, 0, 255] });

    const image = await world.service.create({ apiKeyId: KEY, videoUrl: PUBLIC_VIDEO, request: { background: { type: 'image' } }, autoStart: false });
    expect(image.settings.background).toEqual({ type: 'image', image_url: null });
    const imageRefused = await rejection(world.service.start(KEY, image.id, { request: {} }));
    expect(imageRefused).toMatchObject({ code: 'invalid_request', details: [{ field: 'background.image_url' }] });
    expect((await world.jobs.findById(image.id))?.status).toBe('created');
    expect((await world.service.start(KEY, image.id, { request: { background: { type: 'image', image_url: 'https://images.example.com/bg.png' } } })).status).toBe('pending');

    const mp4 = await world.service.create({ apiKeyId: KEY, videoUrl: PUBLIC_VIDEO, request: { output_format: 'mp4' }, autoStart: false });
    expect((await rejection(world.service.start(KEY, mp4.id, { request: {} }))).details).toEqual([expect.objectContaining({ field: 'output_format' })]);
    expect((await world.service.start(KEY, mp4.id, { request: { bg_type: 'green' } })).status).toBe('pending');

    // what the draft itself sends wrong is still a 400 at create, and auto_start checks everything
    expect((await rejection(world.service.create({ apiKeyId: KEY, videoUrl: PUBLIC_VIDEO, request: { bg_type: 'custom', bg_color: [300, 0, 0] }, autoStart: false }))).details).toEqual([expect.objectContaining({ field: 'bg_color' })]);
    expect((await rejection(world.service.create({ apiKeyId: KEY, videoUrl: PUBLIC_VIDEO, request: { bg_type: 'custom' }, autoStart: true }))).details).toEqual([expect.objectContaining({ field: 'bg_color' })]);
    expect((await world.jobs.list({ apiKeyId: KEY, limit: 10, offset: 0 })).total).toBe(3);
  });

  it('an upload over MAX_VIDEO_SECONDS is a 400 naming video_url when its job would start: no job made by auto_start, a draft left a draft, nothing reserved; a preview of its start starts', async () => {
    const world = jobsWorld({ MAX_VIDEO_SECONDS: '9' }); // the world's probe says 10 s
    await world.ledger.grant(KEY, 100, null);
    const videoUrl = await uploaded(world);
    const refused = await rejection(world.service.create({ apiKeyId: KEY, videoUrl, request: { model: 'light' }, autoStart: true }));
    expect(refused).toMatchObject({ code: 'invalid_request', details: [{ field: 'video_url' }] });
    expect(refused.message).toContain('over the 9 s limit');
    expect((await world.jobs.list({ apiKeyId: KEY, limit: 10, offset: 0 })).total).toBe(0);
    const draft = await world.service.create({ apiKeyId: KEY, videoUrl, request: { model: 'light' }, autoStart: false });
    expect((await rejection(world.service.start(KEY, draft.id, { request: {} }))).code).toBe('invalid_request');
    expect((await world.jobs.findById(draft.id))?.status).toBe('created');
    expect(await world.ledger.balance(KEY)).toBe(100);
    expect((await world.service.start(KEY, draft.id, { request: { preview_duration: 5 } })).status).toBe('pending');
  });

  it('an upload exactly MAX_VIDEO_SECONDS long starts', async () => {
    const world = jobsWorld({ MAX_VIDEO_SECONDS: '10' }); // the world's probe says 10 s
    await world.ledger.grant(KEY, 100, null);
    const job = await world.service.create({ apiKeyId: KEY, videoUrl: await uploaded(world), request: { model: 'light' }, autoStart: true });
    expect(job.status).toBe('pending');
  });

  it('auto_start without enough credit: the job exists, failed with insufficient_credits, counted as a job that ended (it was left out)', async () => {
    const world = jobsWorld();
    const job = await world.service.create({ apiKeyId: KEY, videoUrl: await uploaded(world), request: { model: 'light' }, autoStart: true });
    expect(job).toMatchObject({ status: 'failed', errorCode: 'insufficient_credits', billingStatus: 'insufficient_credits' });
    expect(await world.ledger.balance(KEY)).toBe(0);
    expect(world.metrics.jobs).toEqual([expect.objectContaining({ model: 'light', status: 'failed', errorCode: 'insufficient_credits' })]);
  });

  it('an upload job reserves its cost at start; completion charges the processed seconds and returns the rest', async () => {
    const world = jobsWorld();
    await world.ledger.grant(KEY, 100, null);
    const job = await world.service.create({ apiKeyId: KEY, videoUrl: await uploaded(world), request: { model: 'light' }, autoStart: true });
    expect(job).toMatchObject({ status: 'pending', billingStatus: 'reserved', reservedCredits: 8 });
    expect(await world.ledger.balance(KEY)).toBe(92);

    const processing = await world.lifecycle.pickUp(job);
    expect(processing?.status).toBe('processing');
    world.clock.advance(4000);
    await world.lifecycle.complete(processing!, { outputKey: `outputs/${job.id}.webm`, durationSeconds: 4, frames: 100, notes: [] });

    const done = await world.jobs.findById(job.id);
    expect(done).toMatchObject({ status: 'completed', billingStatus: 'charged', chargedCredits: 3 }); // ceil(4 x 45 / 60)
    expect(await world.ledger.balance(KEY)).toBe(97);
    expect(world.metrics.jobs).toEqual([{ model: 'light', status: 'completed', seconds: 4, frames: 100 }]);
  });

  it('a canceled job gives its whole reserve back; a completed one cannot be canceled', async () => {
    const world = jobsWorld();
    await world.ledger.grant(KEY, 100, null);
    const job = await world.service.create({ apiKeyId: KEY, videoUrl: await uploaded(world), request: { model: 'light' }, autoStart: true });
    const canceled = await world.service.cancel(KEY, job.id);
    expect(canceled).toMatchObject({ status: 'failed', errorCode: 'canceled', billingStatus: 'refunded' });
    expect(await world.ledger.balance(KEY)).toBe(100);
    expect((await rejection(world.service.cancel(KEY, job.id))).code).toBe('invalid_state');
  });

  type World = ReturnType<typeof jobsWorld>;
  type Fail = World['lifecycle']['fail'];
  it.each<[string, (world: World, jobId: string, fail: Fail) => Promise<unknown>, Record<string, unknown>]>([
    ['a completion (it answered 200 with the job completed and charged)', (world, jobId) => world.jobs.transition(jobId, 'processing', { status: 'completed', progress: 100, completedAt: world.clock.now() }), { status: 'completed' }],
    ['a failure of the worker (it answered 200, a success, with the job failed worker_failed)', async (world, jobId, fail) => fail((await world.jobs.findById(jobId))!, 'worker_failed', 'the engine crashed'), { status: 'failed', errorCode: 'worker_failed' }],
  ])('a cancel that %s beat is refused as one after it would be', async (_case, beat, ended) => {
    const world = jobsWorld();
    await world.ledger.grant(KEY, 100, null);
    const job = await world.service.create({ apiKeyId: KEY, videoUrl: await uploaded(world), request: { model: 'light' }, autoStart: true });
    await world.jobs.transition(job.id, 'pending', { status: 'processing' });
    // the worker ends the job after the cancel read it as processing, before the cancel's own transaction
    const fail = world.lifecycle.fail.bind(world.lifecycle);
    jest.spyOn(world.lifecycle, 'fail').mockImplementationOnce(async (...args) => {
      await beat(world, job.id, fail);
      return fail(...args);
    });
    expect(await rejection(world.service.cancel(KEY, job.id))).toMatchObject({ code: 'invalid_state', message: expect.stringContaining(`'${ended.status}'`) });
    expect(await world.service.get(KEY, job.id)).toMatchObject(ended);
  });

  it('a cancel that another cancel beat answers the canceled job (a double click)', async () => {
    const world = jobsWorld();
    await world.ledger.grant(KEY, 100, null);
    const job = await world.service.create({ apiKeyId: KEY, videoUrl: await uploaded(world), request: { model: 'light' }, autoStart: true });
    const fail = world.lifecycle.fail.bind(world.lifecycle);
    jest.spyOn(world.lifecycle, 'fail').mockImplementationOnce(async (...args) => {
      await fail(...args);
      return fail(...args);
    });
    expect(await world.service.cancel(KEY, job.id)).toMatchObject({ status: 'failed', errorCode: 'canceled' });
  });

  it('a start whose upload retention took meanwhile is refused 410 in its own transaction, the draft left a draft and nothing reserved', async () => {
    const world = jobsWorld();
    await world.ledger.grant(KEY, 100, null);
    const draft = await world.service.create({ apiKeyId: KEY, videoUrl: await uploaded(world), request: { model: 'light' }, autoStart: false });
    // the upload's row as the start's transaction finds it once held: retention claimed it after the start read it
    jest.spyOn(world.uploadRows, 'holdForStart').mockResolvedValueOnce('deleted');
    expect(await rejection(world.service.start(KEY, draft.id, { request: {} }))).toMatchObject({ code: 'gone' });
    expect((await world.service.get(KEY, draft.id)).status).toBe('created');
    expect(await world.ledger.balance(KEY)).toBe(100);
  });

  it('a job of a request that authenticated just before its key was disabled is refused 401 and not written, as a draft, started at once, or a draft started later', async () => {
    const world = jobsWorld();
    const key = await world.keys.create({ clientId: 'c', note: null, keyHash: 'k'.repeat(64), fingerprint: 'f'.repeat(12), webhookSecret: null });
    await world.ledger.grant(key.id, 100, null);
    const draft = await world.service.create({ apiKeyId: key.id, videoUrl: await uploaded(world, key.id), request: { model: 'light' }, autoStart: false });
    const videoUrl = await uploaded(world, key.id);
    await world.keys.setEnabled(key.fingerprint, false);
    for (const autoStart of [false, true]) {
      expect((await rejection(world.service.create({ apiKeyId: key.id, videoUrl, request: { model: 'light' }, autoStart }))).code).toBe('invalid_api_key');
    }
    expect((await rejection(world.service.start(key.id, draft.id, { request: {} }))).code).toBe('invalid_api_key');
    expect((await world.service.list(key.id, { limit: 10, offset: 0 })).items.map((job) => [job.id, job.status])).toEqual([[draft.id, 'created']]);
    expect(await world.ledger.balance(key.id)).toBe(100);
  });

  it('another key’s job and upload are not found', async () => {
    const world = jobsWorld();
    const job = await world.service.create({ apiKeyId: KEY, videoUrl: PUBLIC_VIDEO, request: {}, autoStart: false });
    expect((await rejection(world.service.get('key_b', job.id))).code).toBe('not_found');
    const error = await rejection(world.service.create({ apiKeyId: 'key_b', videoUrl: await uploaded(world, KEY), request: {}, autoStart: false }));
    expect(error.details?.map((detail) => detail.field)).toEqual(['video_url']);
  });

  it('refuses a video_url or webhook_url on a private address, naming the field', async () => {
    const world = jobsWorld();
    const video = await rejection(world.service.create({ apiKeyId: KEY, videoUrl: 'http://10.0.0.7/clip.mp4', request: {}, autoStart: false }));
    expect(video.details?.map((detail) => detail.field)).toEqual(['video_url']);
    const hook = await rejection(world.service.create({ apiKeyId: KEY, videoUrl: PUBLIC_VIDEO, request: {}, webhookUrl: 'http://localhost/hook', autoStart: false }));
    expect(hook.details?.map((detail) => detail.field)).toEqual(['webhook_url']);
  });

  it('a job committed while the queue is down is handed over by the relay’s sweep', async () => {
    const world = jobsWorld();
    await world.ledger.grant(KEY, 100, null); // a URL job's start needs a credit
    world.dispatcher.failNext();
    const job = await world.service.create({ apiKeyId: KEY, videoUrl: PUBLIC_VIDEO, request: {}, autoStart: true });
    expect(job.status).toBe('pending');
    expect(world.dispatcher.dispatched).toEqual([]);
    world.clock.advance(world.config.env.JOB_RELAY_INTERVAL_MS + 1);
    expect(await world.dispatchRelay.sweep()).toBe(1);
    expect(world.dispatcher.dispatched).toEqual([job.id]);
  });

  it('a sweep stops at the first job the queue does not take (it is down), and the next sweep hands over the rest', async () => {
    const world = jobsWorld();
    await world.ledger.grant(KEY, 100, null); // a URL job's start needs a credit
    world.dispatcher.failNext(3);
    const ids = [];
    for (let i = 0; i < 3; i += 1) ids.push((await world.service.create({ apiKeyId: KEY, videoUrl: PUBLIC_VIDEO, request: {}, autoStart: true })).id);
    world.clock.advance(world.config.env.JOB_RELAY_INTERVAL_MS + 1);
    world.dispatcher.failNext();
    expect(await world.dispatchRelay.sweep()).toBe(0);
    expect(world.dispatcher.dispatched).toEqual([]);
    expect(await world.dispatchRelay.sweep()).toBe(3);
    expect([...world.dispatcher.dispatched].sort()).toEqual([...ids].sort());
  });
});

describe('JobDispatchRelay: pending jobs the queue lost', () => {
  it('queues again, on the next check, the pending jobs whose message the queue lost (a Redis restarted without its data); those it holds and those picked up are left', async () => {
    const world = jobsWorld();
    await world.ledger.grant(KEY, 100, null); // a URL job's start needs a credit
    const queued = () => world.service.create({ apiKeyId: KEY, videoUrl: PUBLIC_VIDEO, request: {}, autoStart: true });
    const [lost, kept, pickedUp] = [await queued(), await queued(), await queued()];
    await world.lifecycle.pickUp(pickedUp);
    world.dispatcher.lose(lost.id);
    world.dispatcher.lose(pickedUp.id);
    expect(await world.dispatchRelay.requeueLost()).toBe(0); // queued since the last check: not yet looked at
    world.clock.advance(world.config.env.JOB_REQUEUE_LOST_INTERVAL_MS + 1);
    expect(await world.dispatchRelay.requeueLost()).toBe(1);
    expect(world.dispatcher.dispatched).toEqual([kept.id, lost.id]);
    expect(await world.dispatchRelay.requeueLost()).toBe(0);
  });
});

describe('JobLifecycle on in-memory adapters', () => {
  it('moves a job once: a second pick-up of the same job loses the compare-and-set', async () => {
    const world = jobsWorld();
    await world.ledger.grant(KEY, 100, null); // a URL job's start needs a credit
    const job = await world.service.create({ apiKeyId: KEY, videoUrl: PUBLIC_VIDEO, request: {}, autoStart: true });
    expect(await world.lifecycle.pickUp(job)).not.toBeNull();
    expect(await world.lifecycle.pickUp(job)).toBeNull();
  });

  it('a failure after the job ended writes and announces nothing', async () => {
    const world = jobsWorld();
    await world.ledger.grant(KEY, 100, null); // a URL job's start needs a credit
    const job = await world.service.create({ apiKeyId: KEY, videoUrl: PUBLIC_VIDEO, request: {}, webhookUrl: 'https://hooks.example.com/in', autoStart: true });
    const processing = (await world.lifecycle.pickUp(job))!;
    await world.lifecycle.complete(processing, { outputKey: `outputs/${job.id}.webm`, durationSeconds: 2, notes: [] });
    const eventsBefore = world.events.events.length;
    await world.lifecycle.fail(processing, 'worker_failed', 'late failure');
    expect((await world.jobs.findById(job.id))?.status).toBe('completed');
    expect(world.events.events).toHaveLength(eventsBefore);
    expect(world.outbox.all().map((delivery) => delivery.event)).toEqual(['job.started', 'job.completed']);
  });

  it('a URL job whose fetched input costs more than the balance fails with insufficient_credits', async () => {
    const world = jobsWorld();
    await world.ledger.grant(KEY, 1, null);
    const job = await world.service.create({ apiKeyId: KEY, videoUrl: PUBLIC_VIDEO, request: { model: 'light' }, autoStart: true });
    const processing = (await world.lifecycle.pickUp(job))!;
    expect(await world.lifecycle.reserveFetchedInput(processing, 60)).toBeNull();
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'failed', errorCode: 'insufficient_credits' });
    expect(await world.ledger.balance(KEY)).toBe(1);
  });

  it('a URL job run twice (a stalled job run again) is reserved once: the second run finds the first reserve and is not failed for credit', async () => {
    const world = jobsWorld();
    await world.ledger.grant(KEY, 50, null); // a 60 s light job costs 45: one reserve fits, two do not
    const job = await world.service.create({ apiKeyId: KEY, videoUrl: PUBLIC_VIDEO, request: { model: 'light' }, autoStart: true });
    const processing = (await world.lifecycle.pickUp(job))!;
    expect(await world.lifecycle.reserveFetchedInput(processing, 60)).toMatchObject({ status: 'processing', reservedCredits: 45 });
    expect(await world.lifecycle.reserveFetchedInput(processing, 60)).toMatchObject({ status: 'processing', reservedCredits: 45 });
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'processing', billingStatus: 'reserved' });
    expect(await world.ledger.balance(KEY)).toBe(5);
  });

  it('a cancel that read the job pending just before a worker picked it up cancels it (it was answered 409)', async () => {
    const world = jobsWorld();
    await world.ledger.grant(KEY, 100, null); // a URL job's start needs a credit
    const job = await world.service.create({ apiKeyId: KEY, videoUrl: PUBLIC_VIDEO, request: { model: 'light' }, autoStart: true });
    const pending = (await world.jobs.findById(job.id))!;
    await world.lifecycle.pickUp(pending);
    jest.spyOn(world.jobs, 'findById').mockResolvedValueOnce(pending);
    await world.lifecycle.cancel(pending);
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'failed', errorCode: 'canceled' });
  });

  it('a URL job canceled while its input was fetched keeps nothing reserved once the fetch ends', async () => {
    const world = jobsWorld();
    await world.ledger.grant(KEY, 100, null);
    const job = await world.service.create({ apiKeyId: KEY, videoUrl: PUBLIC_VIDEO, request: { model: 'light' }, autoStart: true });
    const processing = (await world.lifecycle.pickUp(job))!;
    await world.lifecycle.cancel(processing);
    expect(await world.lifecycle.reserveFetchedInput(processing, 60)).toBeNull();
    expect(await world.jobs.findById(job.id)).toMatchObject({ status: 'failed', errorCode: 'canceled', reservedCredits: null });
    expect(await world.ledger.balance(KEY)).toBe(100);
  });

  describe('with the database unreachable', () => {
    const outage = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

    it("a job on an upload is refused with the database's error (a 503), not as an upload that does not exist (a 400)", async () => {
      const world = jobsWorld();
      const videoUrl = await uploaded(world);
      jest.spyOn(world.uploadRows, 'findOwned').mockRejectedValue(outage());
      await expect(world.service.create({ apiKeyId: KEY, videoUrl, request: {}, autoStart: false })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      expect(await world.jobs.list({ apiKeyId: KEY, limit: 10, offset: 0 })).toMatchObject({ total: 0 });
    });

    it('an auto-started job whose start the database refuses is not left behind as a draft: the retry makes the only job', async () => {
      const world = jobsWorld();
      await world.ledger.grant(KEY, 20, null);
      const videoUrl = await uploaded(world);
      jest.spyOn(world.ledger, 'reserve').mockRejectedValueOnce(outage());
      await expect(world.service.create({ apiKeyId: KEY, videoUrl, request: { model: 'light' }, autoStart: true })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      expect(await world.jobs.list({ apiKeyId: KEY, limit: 10, offset: 0 })).toMatchObject({ total: 0 });
      expect(world.events.events).toEqual([]);
      const retried = await world.service.create({ apiKeyId: KEY, videoUrl, request: { model: 'light' }, autoStart: true });
      expect(await world.jobs.list({ apiKeyId: KEY, limit: 10, offset: 0 })).toMatchObject({ total: 1, items: [{ id: retried.id, status: 'pending' }] });
      expect(world.events.events.map((event) => event.kind)).toEqual(['created', 'started']);
    });

    it('an auto-started job refused for credit is stored failed in one write: a database gone there leaves no draft either', async () => {
      const world = jobsWorld();
      const videoUrl = await uploaded(world);
      jest.spyOn(world.outbox, 'add').mockRejectedValueOnce(outage());
      await expect(world.service.create({ apiKeyId: KEY, videoUrl, request: { model: 'light' }, webhookUrl: 'https://hooks.example.com/in', autoStart: true })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      expect(await world.jobs.list({ apiKeyId: KEY, limit: 10, offset: 0 })).toMatchObject({ total: 0 });
      const refused = await world.service.create({ apiKeyId: KEY, videoUrl, request: { model: 'light' }, webhookUrl: 'https://hooks.example.com/in', autoStart: true });
      expect(refused).toMatchObject({ status: 'failed', errorCode: 'insufficient_credits' });
      expect(world.events.events.map((event) => event.kind)).toEqual(['created', 'failed']);
    });

    it('a start that was committed is answered as started, though the job cannot be read back', async () => {
      const world = jobsWorld();
      await world.ledger.grant(KEY, 20, null);
      const draft = await world.service.create({ apiKeyId: KEY, videoUrl: await uploaded(world), request: { model: 'light' }, autoStart: false });
      const readBack = jest.spyOn(world.jobs, 'findById');
      const started = world.service.start(KEY, draft.id, { request: {} });
      readBack.mockRejectedValue(outage());
      const job = await started;
      expect(job).toMatchObject({ id: draft.id, status: 'pending' });
      readBack.mockRestore();
      expect((await world.jobs.findById(draft.id))?.status).toBe('pending');
      expect(await world.ledger.balance(KEY)).toBe(12);
    });
  });
});
