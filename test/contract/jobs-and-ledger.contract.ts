import { newJobId } from '../../src/common/ids';
import { CreditLedger } from '../../src/modules/billing/ports/credit-ledger';
import { draftJob, Job, withClientContentErased } from '../../src/modules/jobs/domain/job';
import { resolveJobSettings } from '../../src/modules/jobs/domain/job-settings';
import { JobRepository } from '../../src/modules/jobs/ports/job.repository';

/**
 * The behaviour every JobRepository and every CreditLedger must show, whatever holds the data. Each
 * adapter's spec calls these with its own harness (test/contract/repositories.contract.spec.ts on
 * Postgres, test/contract/in-memory.contract.spec.ts in memory).
 */
export interface Harness {
  jobs(): JobRepository;
  /** an API key that may own jobs and credits */
  newOwner(): Promise<string>;
  /** runs work with the ledger of one transaction */
  inTransaction<T>(work: (ledger: CreditLedger) => Promise<T>): Promise<T>;
}

export function aJob(apiKeyId: string, overrides: Partial<Job> = {}): Job {
  const request = { output_format: 'webm' as const, model: 'light' as const, bg_type: 'green' as const };
  const draft = draftJob({ id: newJobId(), apiKeyId, videoUrl: 'https://example.com/v.mp4', request, settings: resolveJobSettings(request), webhookUrl: null, metadata: { order: '7' }, createdAt: new Date() });
  return { ...draft, ...overrides };
}

export function describeJobRepositoryContract(harness: Harness): void {
  describe('JobRepository contract', () => {
    it('reads every field of a job back, scoped to its owner', async () => {
      const [owner, stranger] = [await harness.newOwner(), await harness.newOwner()];
      const job = aJob(owner, { webhookUrl: 'https://hooks.example.com/x' });
      await harness.jobs().insert(job);
      const read = await harness.jobs().findOwned(job.id, owner);
      // (createdAt compared as a time: an adapter may hand back a Date of another realm)
      expect({ ...read, createdAt: read?.createdAt.getTime() }).toEqual({ ...job, createdAt: job.createdAt.getTime() });
      expect(await harness.jobs().findOwned(job.id, stranger)).toBeNull();
    });

    it('transitions are compare-and-set: of two racing movers one wins, a stale one loses', async () => {
      const job = aJob(await harness.newOwner());
      await harness.jobs().insert(job);
      const results = await Promise.all([harness.jobs().transition(job.id, 'created', { status: 'pending' }), harness.jobs().transition(job.id, 'created', { status: 'pending' })]);
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await harness.jobs().transition(job.id, 'created', { status: 'failed' })).toBeNull();
      expect((await harness.jobs().transition(job.id, 'pending', { status: 'processing' }))?.status).toBe('processing');
    });

    it('writes progress only while processing', async () => {
      const job = aJob(await harness.newOwner(), { status: 'processing' });
      await harness.jobs().insert(job);
      expect(await harness.jobs().updateProgress(job.id, 42.5)).toBe(true);
      expect((await harness.jobs().findById(job.id))?.progress).toBe(42.5);
      await harness.jobs().transition(job.id, 'processing', { status: 'failed' });
      expect(await harness.jobs().updateProgress(job.id, 50)).toBe(false);
    });

    it("sums chunks' progress atomically, each chunk at its best, kept within 0..99, only while processing", async () => {
      const job = aJob(await harness.newOwner(), { status: 'processing' });
      await harness.jobs().insert(job);
      const progress = async () => (await harness.jobs().findById(job.id))?.progress;
      // three chunks reporting at once, from different workers
      await Promise.all([10, 20, 12.5].map((done, chunk) => harness.jobs().recordChunkProgress(job.id, chunk, done)));
      expect(await progress()).toBeCloseTo(42.5, 5);
      // chunk 1 failed and runs again from its start: the job keeps its best (the bar does not go back)
      expect(await harness.jobs().recordChunkProgress(job.id, 1, 5)).toBe(true);
      expect(await progress()).toBeCloseTo(42.5, 5);
      // and it counts once when it passes its best (a lost attempt's share is not added twice)
      await harness.jobs().recordChunkProgress(job.id, 1, 25);
      expect(await progress()).toBeCloseTo(47.5, 5);
      await harness.jobs().recordChunkProgress(job.id, 2, 150);
      expect(await progress()).toBe(99);
      await harness.jobs().transition(job.id, 'processing', { status: 'failed' });
      expect(await harness.jobs().recordChunkProgress(job.id, 0, 11)).toBe(false);
    });

    it('lists newest first with limit, offset, status and a total', async () => {
      const owner = await harness.newOwner();
      const base = Date.now();
      const made = [0, 1, 2, 3].map((i) => aJob(owner, { createdAt: new Date(base + i * 1000), status: i % 2 ? 'completed' : 'created' }));
      for (const job of made) await harness.jobs().insert(job);
      const page = await harness.jobs().list({ apiKeyId: owner, limit: 2, offset: 1 });
      expect(page.total).toBe(4);
      expect(page.items.map((job) => job.id)).toEqual([made[2].id, made[1].id]);
      const completed = await harness.jobs().list({ apiKeyId: owner, status: 'completed', limit: 10, offset: 0 });
      expect(completed.items.map((job) => job.id)).toEqual([made[3].id, made[1].id]);
      expect(completed.total).toBe(2);
      // every field as a read by id gives it
      expect(page.items[0]).toEqual(await harness.jobs().findOwned(made[2].id, owner));
      const pastTheEnd = await harness.jobs().list({ apiKeyId: owner, limit: 10, offset: 4 });
      expect(pastTheEnd).toEqual({ items: [], total: 4 });
    });

    it('reads a page and its total at one instant: while jobs complete, a list of completed jobs shows every one it counts', async () => {
      const owner = await harness.newOwner();
      const running = Array.from({ length: 30 }, () => aJob(owner, { status: 'processing' }));
      for (const job of running) await harness.jobs().insert(job);
      let completing = true;
      const completions = (async () => {
        for (const job of running) await harness.jobs().transition(job.id, 'processing', { status: 'completed' });
        completing = false;
      })();
      const mismatches: string[] = [];
      while (completing) {
        const pages = await Promise.all([0, 1, 2, 3].map(() => harness.jobs().list({ apiKeyId: owner, status: 'completed', limit: 100, offset: 0 })));
        for (const page of pages) if (page.items.length !== page.total) mismatches.push(`${page.items.length} shown of ${page.total}`);
      }
      await completions;
      expect(mismatches).toEqual([]);
    });

    it('lists jobs created in the same instant by id, newest id first, the same on every page', async () => {
      const owner = await harness.newOwner();
      const at = new Date();
      const made = [0, 1, 2].map(() => aJob(owner, { createdAt: at }));
      for (const job of made) await harness.jobs().insert(job);
      const byIdDescending = made.map((job) => job.id).sort().reverse();
      const pages = await Promise.all([0, 1, 2].map((offset) => harness.jobs().list({ apiKeyId: owner, limit: 1, offset })));
      expect(pages.map((page) => page.items[0].id)).toEqual(byIdDescending);
    });

    it("lists a key's pending and processing jobs as its active ones", async () => {
      const [owner, stranger] = [await harness.newOwner(), await harness.newOwner()];
      const made = (['created', 'pending', 'processing', 'completed', 'failed'] as const).map((status) => aJob(owner, { status }));
      for (const job of [...made, aJob(stranger, { status: 'processing' })]) await harness.jobs().insert(job);
      const active = await harness.jobs().activeOf(owner);
      expect(active.map((job) => job.id).sort()).toEqual([made[1].id, made[2].id].sort());
    });

    it("erases a key's client content as withClientContentErased does, outputs marked deleted, every output key answered; another key's jobs untouched", async () => {
      const [owner, stranger] = [await harness.newOwner(), await harness.newOwner()];
      const imageRequest = { output_format: 'webm' as const, model: 'pro' as const, background: { type: 'image' as const, image_url: 'https://img.example.com/b.png' }, text_prompt: 'a red kite' };
      const withImage = aJob(owner, {
        status: 'completed',
        request: imageRequest,
        settings: resolveJobSettings(imageRequest),
        webhookUrl: 'https://hooks.example.com/x',
        outputKey: 'outputs/job_a/output.webm',
        notes: ['trimmed to 30 s'],
      });
      const deletedBefore = aJob(owner, { status: 'completed', outputKey: 'outputs/job_b/output.webm', outputDeletedAt: new Date('2026-01-02T00:00:00Z') });
      const failed = aJob(owner, { status: 'failed', error: 'Could not fetch https://client.example.com/v.mp4', errorCode: 'input_unreachable', request: { bg_type: 'image', bg_image_url: 'https://img.example.com/c.png' } });
      const strangers = aJob(stranger, { webhookUrl: 'https://hooks.example.com/y' });
      for (const job of [withImage, deletedBefore, failed, strangers]) await harness.jobs().insert(job);
      const now = new Date('2026-03-01T00:00:00Z');
      const erased = await harness.jobs().eraseClientContent(owner, now);
      expect(erased.jobs).toBe(3);
      expect([...erased.outputKeys].sort()).toEqual(['outputs/job_a/output.webm', 'outputs/job_b/output.webm']);
      const read = async (job: Job) => {
        const stored = await harness.jobs().findById(job.id);
        return { ...stored, createdAt: stored?.createdAt.getTime(), outputDeletedAt: stored?.outputDeletedAt?.getTime() ?? null };
      };
      for (const job of [withImage, deletedBefore, failed]) {
        const expected = withClientContentErased(job, now);
        expect(await read(job)).toEqual({ ...expected, createdAt: job.createdAt.getTime(), outputDeletedAt: expected.outputDeletedAt?.getTime() ?? null });
      }
      expect(await read(withImage)).toMatchObject({ videoUrl: '', webhookUrl: null, metadata: null, notes: [], request: { background: { type: 'image' } }, settings: { textPrompt: null, background: { type: 'image', image_url: '' } } });
      expect((await read(failed)).error).toBeNull();
      expect((await read(failed)).errorCode).toBe('input_unreachable');
      expect(await harness.jobs().findById(strangers.id)).toMatchObject({ videoUrl: strangers.videoUrl, webhookUrl: 'https://hooks.example.com/y', metadata: { order: '7' } });
    });

    it('finds pending jobs not yet handed to the queue, oldest start first, until marked dispatched', async () => {
      const owner = await harness.newOwner();
      const old = aJob(owner, { status: 'pending', startedAt: new Date(Date.now() - 60_000) });
      const older = aJob(owner, { status: 'pending', startedAt: new Date(Date.now() - 120_000) });
      const fresh = aJob(owner, { status: 'pending', startedAt: new Date() });
      for (const job of [old, older, fresh]) await harness.jobs().insert(job);
      const stale = (await harness.jobs().undispatched(new Date(Date.now() - 30_000), 100)).filter((id) => [old.id, older.id, fresh.id].includes(id));
      expect(stale).toEqual([older.id, old.id]);
      await harness.jobs().markDispatched(older.id, new Date());
      expect(await harness.jobs().undispatched(new Date(Date.now() - 30_000), 100)).not.toContain(older.id);
    });

    it("finds a key past its fair share only with its share processing and another key's job waiting under its own", async () => {
      const [busy, waiting] = [await harness.newOwner(), await harness.newOwner()];
      const insert = async (owner: string, status: 'processing' | 'pending', dispatched = true) => {
        const job = aJob(owner, { status });
        await harness.jobs().insert(job);
        if (dispatched) await harness.jobs().markDispatched(job.id, new Date());
        return job;
      };
      await insert(busy, 'processing');
      await insert(waiting, 'pending');
      // the database is shared with other cases: other keys' jobs may wait too, so only what `busy` has decides here
      expect(await harness.jobs().overFairShare(busy, 2)).toBe(false);
      await insert(busy, 'processing');
      expect(await harness.jobs().overFairShare(busy, 2)).toBe(true);
    });

    it('pages through the pending jobs handed to the queue before a time, each once; a job picked up or not yet handed over is not one', async () => {
      const owner = await harness.newOwner();
      const queued = [aJob(owner, { status: 'pending' }), aJob(owner, { status: 'pending' }), aJob(owner, { status: 'pending' })];
      const justQueued = aJob(owner, { status: 'pending' });
      const pickedUp = aJob(owner, { status: 'processing' });
      const notHanded = aJob(owner, { status: 'pending' });
      for (const job of [...queued, justQueued, pickedUp, notHanded]) await harness.jobs().insert(job);
      const before = new Date(Date.now() - 30_000);
      for (const job of [...queued, pickedUp]) await harness.jobs().markDispatched(job.id, new Date(before.getTime() - 1000));
      await harness.jobs().markDispatched(justQueued.id, new Date());
      const mine = [...queued, justQueued, pickedUp, notHanded].map((job) => job.id);
      const pages: string[][] = [];
      for (let page = await harness.jobs().waitingInQueue(before, 2); page.length > 0; page = await harness.jobs().waitingInQueue(before, 2, page[page.length - 1])) pages.push(page);
      expect(pages.every((page) => page.length <= 2)).toBe(true);
      // each once (the database's collation orders the ids, not JavaScript's)
      const found = pages.flat().filter((id) => mine.includes(id));
      expect(found.sort()).toEqual(queued.map((job) => job.id).sort());
    });
  });
}

export function describeCreditLedgerContract(harness: Harness): void {
  describe('CreditLedger contract', () => {
    const withJob = async (owner: string) => {
      const job = aJob(owner);
      await harness.jobs().insert(job);
      return job.id;
    };

    it('grants, reserves, settles at most the reserve and releases the rest, idempotently', async () => {
      const owner = await harness.newOwner();
      const job = await withJob(owner);
      expect(await harness.inTransaction((ledger) => ledger.grant(owner, 10, null))).toBe(10);
      expect(await harness.inTransaction((ledger) => ledger.reserve(owner, job, 11))).toBe(false);
      expect(await harness.inTransaction((ledger) => ledger.reserve(owner, job, 8))).toBe(true);
      expect(await harness.inTransaction((ledger) => ledger.balance(owner))).toBe(2);
      expect(await harness.inTransaction((ledger) => ledger.settle(owner, job, 5))).toBe(5);
      expect(await harness.inTransaction((ledger) => ledger.settle(owner, job, 5))).toBe(5);
      await harness.inTransaction((ledger) => ledger.release(owner, job));
      expect(await harness.inTransaction((ledger) => ledger.balance(owner))).toBe(5);
    });

    it('settles a charge above the reserve at the reserve (a job that ran longer than its estimate), and releases nothing more', async () => {
      const owner = await harness.newOwner();
      const job = await withJob(owner);
      await harness.inTransaction((ledger) => ledger.grant(owner, 10, null));
      expect(await harness.inTransaction((ledger) => ledger.reserve(owner, job, 8))).toBe(true);
      expect(await harness.inTransaction((ledger) => ledger.settle(owner, job, 12))).toBe(8);
      await harness.inTransaction((ledger) => ledger.release(owner, job));
      expect(await harness.inTransaction((ledger) => ledger.balance(owner))).toBe(2);
    });

    it('never goes negative: a deduction stops at zero', async () => {
      const owner = await harness.newOwner();
      await harness.inTransaction((ledger) => ledger.grant(owner, 4, null));
      expect(await harness.inTransaction((ledger) => ledger.grant(owner, -100, null))).toBe(0);
      expect(await harness.inTransaction((ledger) => ledger.balance(owner))).toBe(0);
    });

    it('concurrent reserves never overdraw', async () => {
      const owner = await harness.newOwner();
      const jobs = await Promise.all([1, 2, 3, 4].map(() => withJob(owner)));
      await harness.inTransaction((ledger) => ledger.grant(owner, 10, null));
      const granted = await Promise.all(jobs.map((job) => harness.inTransaction((ledger) => ledger.reserve(owner, job, 4))));
      expect(granted.filter(Boolean)).toHaveLength(2);
      expect(await harness.inTransaction((ledger) => ledger.balance(owner))).toBe(2);
    });

    it("lock holds the key's ledger to the end of the transaction: of two that read the balance after it, the second reads what the first wrote", async () => {
      const owner = await harness.newOwner();
      await harness.inTransaction((ledger) => ledger.grant(owner, 5, null));
      const spendAllIfFive = () =>
        harness.inTransaction(async (ledger) => {
          await ledger.lock(owner);
          const balance = await ledger.balance(owner);
          await new Promise((resolve) => setTimeout(resolve, 50));
          if (balance < 5) return 'refused';
          await ledger.grant(owner, -5, null);
          return 'spent';
        });
      expect((await Promise.all([spendAllIfFive(), spendAllIfFive()])).sort()).toEqual(['refused', 'spent']);
    });

    it('a released reserve cannot be settled', async () => {
      const owner = await harness.newOwner();
      const job = await withJob(owner);
      await harness.inTransaction((ledger) => ledger.grant(owner, 10, null));
      await harness.inTransaction((ledger) => ledger.reserve(owner, job, 6));
      await harness.inTransaction((ledger) => ledger.release(owner, job));
      expect(await harness.inTransaction((ledger) => ledger.settle(owner, job, 6))).toBe(0);
      expect(await harness.inTransaction((ledger) => ledger.balance(owner))).toBe(10);
    });
  });
}
