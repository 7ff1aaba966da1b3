import { CreditLedger } from '../../src/modules/billing/ports/credit-ledger';
import { JobEventLog } from '../../src/modules/jobs/ports/job-event-log';
import { UsageCounters } from '../../src/modules/usage/domain/usage-summary';
import { RequestRecord, UsageStore } from '../../src/modules/usage/ports/usage-store';

export interface UsageHarness {
  store(): UsageStore;
  /** an API key with a job it owns */
  newOwnerWithJob(): Promise<{ owner: string; jobId: string }>;
  events(): JobEventLog;
  inTransaction<T>(work: (ledger: CreditLedger) => Promise<T>): Promise<T>;
}

/** The rows of one day summed (a store may answer a day in several partial rows). */
function dayTotals(rows: Array<Partial<UsageCounters> & { date: string }>, date: string): Partial<UsageCounters> {
  const totals: Partial<Record<keyof UsageCounters, number>> = {};
  for (const row of rows.filter((r) => r.date === date)) {
    for (const [name, value] of Object.entries(row)) if (name !== 'date') totals[name as keyof UsageCounters] = (totals[name as keyof UsageCounters] ?? 0) + (value as number);
  }
  return totals;
}

const request = (apiKeyId: string, at: Date, overrides: Partial<RequestRecord> = {}): RequestRecord => ({ apiKeyId, method: 'GET', path: '/v1/jobs', statusCode: 200, durationMs: 12.5, jobId: null, credits: 0, at, ...overrides });

/** What every UsageStore must do (TypeORM in repositories.contract.spec.ts, in memory in in-memory.contract.spec.ts). */
export function describeUsageStoreContract(h: UsageHarness): void {
  describe('UsageStore contract', () => {
    it('counts requests per UTC day since `from`, per key', async () => {
      const [{ owner }, { owner: other }] = [await h.newOwnerWithJob(), await h.newOwnerWithJob()];
      const day = new Date('2026-03-04T23:59:00Z');
      await h.store().insertRequests([request(owner, day), request(owner, new Date('2026-03-05T00:00:30Z')), request(owner, new Date('2026-03-05T10:00:00Z')), request(other, day), request(owner, new Date('2026-02-01T00:00:00Z'))]);
      const rows = await h.store().dailyCounters(owner, new Date('2026-03-01T00:00:00Z'));
      expect(dayTotals(rows, '2026-03-04')).toEqual({ requests: 1 });
      expect(dayTotals(rows, '2026-03-05')).toEqual({ requests: 2 });
      expect(dayTotals(rows, '2026-02-01')).toEqual({});
    });

    it("prunes requests recorded before a time: they leave the recent list, their days' counts stay", async () => {
      const { owner } = await h.newOwnerWithJob();
      await h.store().insertRequests([request(owner, new Date('2025-01-10T10:00:00Z'), { path: '/old' }), request(owner, new Date('2025-01-10T11:00:00Z'), { path: '/old' }), request(owner, new Date('2025-03-01T10:00:00Z'), { path: '/new' })]);
      expect(await h.store().pruneRequests(new Date('2025-02-01T00:00:00Z'))).toBeGreaterThanOrEqual(2);
      expect((await h.store().recentRequests(owner, 10)).map((r) => r.path)).toEqual(['/new']);
      const rows = await h.store().dailyCounters(owner, new Date('2025-01-01T00:00:00Z'));
      expect([dayTotals(rows, '2025-01-10'), dayTotals(rows, '2025-03-01')]).toEqual([{ requests: 2 }, { requests: 1 }]);
    });

    it('counts the requests of batches written at once by several processes, each once', async () => {
      const [{ owner }, { owner: other }] = [await h.newOwnerWithJob(), await h.newOwnerWithJob()];
      const at = new Date('2025-05-05T05:00:00Z');
      await Promise.all(Array.from({ length: 8 }, (_, i) => h.store().insertRequests([request(i % 2 ? owner : other, at), request(owner, at), request(other, at)])));
      const counts = async (key: string) => dayTotals(await h.store().dailyCounters(key, new Date('2025-05-05T00:00:00Z')), '2025-05-05');
      expect([await counts(owner), await counts(other)]).toEqual([{ requests: 12 }, { requests: 12 }]);
    });

    it('counts the jobs created, completed (with their seconds) and failed, and the credits charged, today', async () => {
      const { owner, jobId } = await h.newOwnerWithJob();
      await h.events().record({ apiKeyId: owner, jobId, kind: 'created' });
      await h.events().record({ apiKeyId: owner, jobId, kind: 'created' });
      await h.events().record({ apiKeyId: owner, jobId, kind: 'completed', seconds: 12.5, credits: 20 });
      await h.events().record({ apiKeyId: owner, jobId, kind: 'failed' });
      await h.inTransaction((ledger) => ledger.grant(owner, 100, null));
      await h.inTransaction((ledger) => ledger.reserve(owner, jobId, 30));
      await h.inTransaction((ledger) => ledger.settle(owner, jobId, 20));
      const today = new Date().toISOString().slice(0, 10);
      const rows = await h.store().dailyCounters(owner, new Date(Date.now() - 3600_000));
      expect(dayTotals(rows, today)).toEqual({ total_jobs: 2, completed_jobs: 1, failed_jobs: 1, video_seconds: 12.5, credits_used: 20 });
    });

    it('lists a key\'s requests newest first, limited, with the view\'s fields', async () => {
      const [{ owner, jobId }, { owner: other }] = [await h.newOwnerWithJob(), await h.newOwnerWithJob()];
      const base = Date.parse('2026-04-01T12:00:00Z');
      await h.store().insertRequests([
        request(owner, new Date(base), { path: '/first' }),
        request(owner, new Date(base + 2000), { method: 'POST', path: '/third', statusCode: 201, jobId, credits: 5 }),
        request(owner, new Date(base + 1000), { path: '/second' }),
        request(other, new Date(base + 5000), { path: '/other' }),
      ]);
      const listed = await h.store().recentRequests(owner, 2);
      expect(listed.map((view) => view.path)).toEqual(['/third', '/second']);
      expect(listed[0]).toMatchObject({ created_at: '2026-04-01T12:00:02.000Z', method: 'POST', status_code: 201, job_id: jobId, credits: 5, duration_ms: 12.5 });
      expect(typeof listed[0].id).toBe('number');
    });
  });
}
