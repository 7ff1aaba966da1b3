import { RetentionStore } from '../../src/modules/retention/ports/retention-store';

export interface RetentionHarness {
  store(): RetentionStore;
  /** an upload whose file was stored at `createdAt` */
  addUpload(createdAt: Date): Promise<{ id: string; key: string }>;
  /** a job in `status` that reads upload `uploadId`; `end()` ends it */
  addReadingJob(uploadId: string, status: 'pending' | 'processing'): Promise<{ end(): Promise<void> }>;
  /** a job whose output was stored when it completed, at `completedAt` */
  addOutput(completedAt: Date): Promise<{ id: string; key: string }>;
  /** a job in `status`; `end()` fails it */
  addJob(status: 'created' | 'pending' | 'processing'): Promise<{ id: string; end(): Promise<void> }>;
}

/** What every RetentionStore must do (on Postgres in repositories.contract.spec.ts, in memory in in-memory.contract.spec.ts). */
export function describeRetentionStoreContract(h: RetentionHarness): void {
  describe('RetentionStore contract', () => {
    const mine = <T extends { id: string }>(found: T[], ids: string[]) => found.filter((file) => ids.includes(file.id));

    it('finds uploads older than the cutoff, not yet deleted, until marked deleted', async () => {
      const old = await h.addUpload(new Date('2000-01-01T00:00:00Z'));
      const newer = await h.addUpload(new Date('2000-06-01T00:00:00Z'));
      const cutoff = new Date('2000-03-01T00:00:00Z');
      expect(mine(await h.store().expiredUploads(cutoff, 1000), [old.id, newer.id])).toEqual([old]);
      expect(await h.store().claimUpload(old.id)).toBe(true);
      expect(mine(await h.store().expiredUploads(cutoff, 1000), [old.id, newer.id])).toEqual([]);
      expect(await h.store().claimUpload(old.id)).toBe(false);
      expect(mine(await h.store().expiredUploads(new Date('2001-01-01T00:00:00Z'), 1000), [old.id, newer.id])).toEqual([newer]);
    });

    it.each(['pending', 'processing'] as const)('leaves an upload that a %s job reads until the job ends', async (status) => {
      const read = await h.addUpload(new Date('2000-01-01T00:00:00Z'));
      const job = await h.addReadingJob(read.id, status);
      const cutoff = new Date('2000-03-01T00:00:00Z');
      expect(mine(await h.store().expiredUploads(cutoff, 1000), [read.id])).toEqual([]);
      await job.end();
      expect(mine(await h.store().expiredUploads(cutoff, 1000), [read.id])).toEqual([read]);
    });

    it('does not claim an upload that a job started reading since it was found; a claim taken back finds it again', async () => {
      const upload = await h.addUpload(new Date('2000-01-01T00:00:00Z'));
      const cutoff = new Date('2000-03-01T00:00:00Z');
      expect(mine(await h.store().expiredUploads(cutoff, 1000), [upload.id])).toEqual([upload]);
      const job = await h.addReadingJob(upload.id, 'pending');
      expect(await h.store().claimUpload(upload.id)).toBe(false);
      await job.end();
      expect(await h.store().claimUpload(upload.id)).toBe(true);
      await h.store().unclaimUpload(upload.id);
      expect(mine(await h.store().expiredUploads(cutoff, 1000), [upload.id])).toEqual([upload]);
    });

    it('finds outputs of jobs completed before the cutoff, until marked deleted', async () => {
      const old = await h.addOutput(new Date('2000-01-01T00:00:00Z'));
      const newer = await h.addOutput(new Date('2000-06-01T00:00:00Z'));
      const cutoff = new Date('2000-03-01T00:00:00Z');
      expect(mine(await h.store().expiredOutputs(cutoff, 1000), [old.id, newer.id])).toEqual([old]);
      await h.store().markOutputDeleted(old.id);
      expect(mine(await h.store().expiredOutputs(cutoff, 1000), [old.id, newer.id])).toEqual([]);
      await h.store().unmarkOutputDeleted(old.id);
      expect(mine(await h.store().expiredOutputs(cutoff, 1000), [old.id, newer.id])).toEqual([old]);
    });

    it('answers at most `limit` files', async () => {
      for (let i = 0; i < 3; i += 1) await h.addUpload(new Date('1999-01-01T00:00:00Z'));
      expect(await h.store().expiredUploads(new Date('1999-06-01T00:00:00Z'), 2)).toHaveLength(2);
    });

    it('answers the oldest first, so that a batch never leaves the oldest behind', async () => {
      const uploads = [await h.addUpload(new Date('1998-03-01T00:00:00Z')), await h.addUpload(new Date('1998-01-01T00:00:00Z')), await h.addUpload(new Date('1998-02-01T00:00:00Z'))];
      const outputs = [await h.addOutput(new Date('1998-03-01T00:00:00Z')), await h.addOutput(new Date('1998-01-01T00:00:00Z'))];
      expect(await h.store().expiredUploads(new Date('1998-06-01T00:00:00Z'), 2)).toEqual([uploads[1], uploads[2]]);
      expect(await h.store().expiredOutputs(new Date('1998-06-01T00:00:00Z'), 1)).toEqual([outputs[1]]);
    });
  
    it('gives the uploads\' rows: marked deleted or not; no row, no entry', async () => {
      const [kept, claimed] = [await h.addUpload(new Date('2000-01-01T00:00:00Z')), await h.addUpload(new Date('2000-01-01T00:00:00Z'))];
      expect(await h.store().claimUpload(claimed.id)).toBe(true);
      expect(await h.store().uploadRows([kept.id, claimed.id, 'vid_nosuchupload'])).toEqual(new Map([[kept.id, { deleted: false }], [claimed.id, { deleted: true }]]));
    });

    it("gives each job's hold on its files: running until it ends, then its output until deleted; no row, no entry", async () => {
      const running = await Promise.all((['created', 'pending', 'processing'] as const).map((status) => h.addJob(status)));
      const ended = await h.addJob('processing');
      await ended.end();
      const done = await h.addOutput(new Date('2000-01-01T00:00:00Z'));
      const ids = [...running.map((job) => job.id), ended.id, done.id, 'job_nosuchjob'];
      const expected = new Map([...running.map((job) => [job.id, { running: true, outputKey: null }] as const), [ended.id, { running: false, outputKey: null }], [done.id, { running: false, outputKey: done.key }]]);
      expect(await h.store().jobFiles(ids)).toEqual(expected);
      await h.store().markOutputDeleted(done.id);
      expect((await h.store().jobFiles([done.id])).get(done.id)).toEqual({ running: false, outputKey: null });
    });
  });
}
