import fc from 'fast-check';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { migrate } from '../../src/composition/data-source';
import { CreditLedger } from '../../src/modules/billing/ports/credit-ledger';
import { typeOrmScopeOf as scopeOf } from '../../src/composition/typeorm.transaction-scope';
import { UnitOfWork } from '../../src/common/unit-of-work';
import { TypeOrmCreditLedger } from '../../src/modules/billing/adapters/typeorm/typeorm.credit-ledger';
import { JobLifecycle } from '../../src/modules/jobs/application/job-lifecycle';
import { JobRepository } from '../../src/modules/jobs/ports/job.repository';
import { aJob } from '../contract/jobs-and-ledger.contract';
import { eventually, MEDIA_DIR, startTestApp, TestApp } from '../support/test-app';

/** Credits as a customer checks them: reserve at start, charge processed seconds, refund failures, never overdraw. */
describe('credits', () => {
  let t: TestApp;
  let db: DataSource;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_STARTS_PER_MINUTE: '100000' });
    db = await migrate(t.config.databaseUrl!);
  });
  afterAll(async () => {
    await db.destroy();
    await t.close();
  });

  async function keyWithUpload(credits: number) {
    const key = await t.createKey(credits);
    const upload = await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', path.join(MEDIA_DIR, 'portrait-pan.mp4'));
    return { key, videoUrl: upload.body.video_url as string };
  }
  const balanceOf = async (key: string) => {
    const rows = await db.query(`SELECT k.credits, COALESCE(SUM(l.amount), 0)::bigint AS ledger FROM api_keys k LEFT JOIN credit_ledger l ON l.api_key_id = k.id WHERE k.key_hash = encode(sha256($1::bytea), 'hex') GROUP BY k.credits`, [key]);
    expect(Number(rows[0].credits)).toBe(Number(rows[0].ledger));
    return Number(rows[0].credits);
  };
  const job = (key: string, id: string) => t.http.get(`/v1/jobs/${id}`).set('X-Api-Key', key);

  it('reserves the probed duration at start, charges the processed seconds on completion and releases the rest', async () => {
    const { key, videoUrl } = await keyWithUpload(100);
    t.fake.succeedWith(2);
    try {
      const created = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: videoUrl, model: 'original' });
      expect(created.body.job).toMatchObject({ billing_status: 'reserved', credits_reserved: 4 });
      const done = await eventually(async () => ((await job(key, created.body.id)).body.status === 'completed' ? (await job(key, created.body.id)).body : undefined));
      expect(done).toMatchObject({ billing_status: 'charged', credits_reserved: 4, credits_charged: 2 });
      expect(await balanceOf(key)).toBe(98);
    } finally {
      t.fake.succeedWith(4);
    }
  });

  it('bills a preview for its length and prices each model', async () => {
    const { key, videoUrl } = await keyWithUpload(1000);
    const preview = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: videoUrl, model: 'pro', preview_duration: 1 });
    expect(preview.body.job.credits_reserved).toBe(3);
    const light = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: videoUrl, model: 'light' });
    expect(light.body.job.credits_reserved).toBe(3);
  });

  it('refunds the whole reserve when the job fails', async () => {
    const { key, videoUrl } = await keyWithUpload(10);
    t.fake.failWith('worker_failed', 'boom');
    try {
      const created = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: videoUrl });
      const failed = await eventually(async () => ((await job(key, created.body.id)).body.status === 'failed' ? (await job(key, created.body.id)).body : undefined));
      expect(failed).toMatchObject({ billing_status: 'refunded', error_code: 'worker_failed', credits_charged: null });
      expect(await balanceOf(key)).toBe(10);
    } finally {
      t.fake.succeedWith(4);
    }
  });

  it('answers 402 insufficient_credits at start and leaves the job a draft; auto_start makes it failed', async () => {
    const { key, videoUrl } = await keyWithUpload(3);
    const draft = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: videoUrl, auto_start: false });
    const start = await t.http.post(`/v1/jobs/${draft.body.id}/start`).set('X-Api-Key', key).send({});
    expect(start.status).toBe(402);
    expect(start.body.error.code).toBe('insufficient_credits');
    expect((await job(key, draft.body.id)).body).toMatchObject({ status: 'created', billing_status: null });
    const cheaper = await t.http.post(`/v1/jobs/${draft.body.id}/start`).set('X-Api-Key', key).send({ model: 'light' });
    expect(cheaper.status).toBe(200);

    const auto = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: videoUrl });
    expect(auto.status).toBe(200);
    expect(auto.body).toMatchObject({ status: 'failed', job: { error_code: 'insufficient_credits', billing_status: 'insufficient_credits' } });
    expect(auto.body.message).toMatch(/failed/i);
    expect(await balanceOf(key)).toBe(0);
  });

  it('never overdraws: 50 concurrent starts against a balance that covers 10', async () => {
    const { key, videoUrl } = await keyWithUpload(40);
    t.fake.hold();
    try {
      const drafts = await Promise.all(Array.from({ length: 50 }, () => t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: videoUrl, auto_start: false })));
      const starts = await Promise.all(drafts.map((draft) => t.http.post(`/v1/jobs/${draft.body.id}/start`).set('X-Api-Key', key).send({})));
      const statuses = starts.map((res) => res.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(10);
      expect(statuses.filter((status) => status === 402)).toHaveLength(40);
      expect(await balanceOf(key)).toBe(0);
      const stillDrafts = await t.http.get('/v1/jobs?status=created&limit=100').set('X-Api-Key', key);
      expect(stillDrafts.body.total).toBe(40);
    } finally {
      t.fake.release();
    }
  });

  it('never overdraws, nor deadlocks: 40 concurrent auto-started creations against a balance that covers 10', async () => {
    const { key, videoUrl } = await keyWithUpload(40);
    t.fake.hold();
    try {
      const created = await Promise.all(Array.from({ length: 40 }, () => t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: videoUrl })));
      expect(created.map((res) => res.status)).toEqual(Array.from({ length: 40 }, () => 200));
      const billing = created.map((res) => res.body.job.billing_status as string);
      expect(billing.filter((status) => status === 'reserved')).toHaveLength(10);
      expect(billing.filter((status) => status === 'insufficient_credits')).toHaveLength(30);
      expect(await balanceOf(key)).toBe(0);
      expect((await t.http.get('/v1/jobs?status=created&limit=100').set('X-Api-Key', key)).body.total).toBe(0);
    } finally {
      t.fake.release();
    }
  });

  it("a cancel racing the reserve of a URL job's fetched input releases that reserve: the balance comes back whole", async () => {
    const key = await t.createKey(100);
    const [{ id: apiKeyId }] = await db.query(`SELECT id FROM api_keys WHERE key_hash = encode(sha256($1::bytea), 'hex')`, [key]);
    const job = aJob(apiKeyId, { status: 'processing', startedAt: new Date() });
    await t.app.get(UnitOfWork).run((tx) => tx.get(JobRepository).insert(job));
    // the reserve's transaction is held open once its reserve is written, and the cancel comes then
    let reserveWritten!: () => void;
    let letCommit!: () => void;
    const written = new Promise<void>((resolve) => (reserveWritten = resolve));
    const commit = new Promise<void>((resolve) => (letCommit = resolve));
    const reserve = TypeOrmCreditLedger.prototype.reserve;
    const held = jest.spyOn(TypeOrmCreditLedger.prototype, 'reserve').mockImplementation(async function (this: TypeOrmCreditLedger, ...args: Parameters<typeof reserve>) {
      const reserved = await reserve.apply(this, args);
      reserveWritten();
      await commit;
      return reserved;
    });
    try {
      const lifecycle = t.app.get(JobLifecycle);
      const reserving = lifecycle.reserveFetchedInput(job, 60);
      await written;
      const canceling = lifecycle.cancel(job);
      await new Promise((resolve) => setTimeout(resolve, 300));
      letCommit();
      await Promise.all([reserving, canceling]);
    } finally {
      held.mockRestore();
    }
    const [row] = await db.query(`SELECT status, error_code, billing_status FROM jobs WHERE id = $1`, [job.id]);
    expect(row).toEqual({ status: 'failed', error_code: 'canceled', billing_status: 'refunded' });
    expect(await balanceOf(key)).toBe(100);
  });

  it('the same draft started 8 times at once: one start, seven 409 invalid_state, one reserve', async () => {
    const { key, videoUrl } = await keyWithUpload(40);
    t.fake.hold();
    try {
      const draft = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: videoUrl, auto_start: false });
      const starts = await Promise.all(Array.from({ length: 8 }, () => t.http.post(`/v1/jobs/${draft.body.id}/start`).set('X-Api-Key', key).send({})));
      expect(starts.map((res) => res.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
      for (const refused of starts.filter((res) => res.status === 409)) expect(refused.body.error.code).toBe('invalid_state');
      expect(await balanceOf(key)).toBe(36);
    } finally {
      t.fake.release();
    }
  });

  it('keeps balance = grants - charges - open reserves, never negative, for any sequence (property)', async () => {
    const key = await t.createKey(0);
    const [{ id: apiKeyId }] = await db.query(`SELECT id FROM api_keys WHERE key_hash = encode(sha256($1::bytea), 'hex')`, [key]);
    let run = 0;
    const op = fc.oneof(
      fc.record({ kind: fc.constant('grant' as const), amount: fc.integer({ min: -30, max: 50 }) }),
      fc.record({ kind: fc.constant('reserve' as const), job: fc.nat(4), amount: fc.integer({ min: 0, max: 40 }) }),
      fc.record({ kind: fc.constant('settle' as const), job: fc.nat(4), amount: fc.integer({ min: 0, max: 50 }) }),
      fc.record({ kind: fc.constant('release' as const), job: fc.nat(4) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 25 }), async (ops) => {
        run += 1;
        const start = await db.transaction((m) => scopeOf(m).get(CreditLedger).balance(apiKeyId));
        await db.transaction((m) => scopeOf(m).get(CreditLedger).grant(apiKeyId, -start, null));
        let grants = 0;
        let charges = 0;
        const open = new Map<number, number>();
        const closed = new Set<number>();
        for (const step of ops) {
          const jobId = 'job' in step ? `job_prop${run}x${step.job}` : '';
          await db.transaction(async (m) => {
            const ledger = scopeOf(m).get(CreditLedger);
            const before = await ledger.balance(apiKeyId);
            if (step.kind === 'grant') {
              // the model's own account of a grant: a deduction stops at the balance
              const granted = Math.max(step.amount, -before);
              expect(await ledger.grant(apiKeyId, step.amount, null)).toBe(before + granted);
              grants += granted;
            }
            if (step.kind === 'reserve' && !open.has(step.job) && !closed.has(step.job)) {
              if (await ledger.reserve(apiKeyId, jobId, step.amount)) open.set(step.job, step.amount);
              else expect(before).toBeLessThan(step.amount);
            }
            if (step.kind === 'settle') {
              const charged = await ledger.settle(apiKeyId, jobId, step.amount);
              if (open.has(step.job)) {
                expect(charged).toBe(Math.min(step.amount, open.get(step.job)!));
                charges += charged;
                open.delete(step.job);
                closed.add(step.job);
              }
            }
            if (step.kind === 'release' && open.has(step.job)) {
              await ledger.release(apiKeyId, jobId);
              open.delete(step.job);
              closed.add(step.job);
            }
            const balance = await ledger.balance(apiKeyId);
            expect(balance).toBeGreaterThanOrEqual(0);
            expect(balance).toBe(grants - charges - [...open.values()].reduce((a, b) => a + b, 0));
          });
        }
        // the balance is read from the key's row: it must be the ledger's sum, entry by entry
        const [{ credits, sum }] = await db.query(`SELECT credits, (SELECT COALESCE(SUM(amount), 0) FROM credit_ledger WHERE api_key_id = $1) AS sum FROM api_keys WHERE id = $1`, [apiKeyId]);
        expect(Number(credits)).toBe(Number(sum));
      }),
      { numRuns: 30 },
    );
  }, 120000);
});
