import { Readable } from 'node:stream';
import { FixedClock } from '../../../src/common/clock';
import { loadConfig } from '../../../src/config/app-config';
import { InMemoryRetentionStore } from '../../../src/modules/retention/adapters/in-memory/in-memory.retention-store';
import { OrphanSweep } from '../../../src/modules/retention/application/orphan-sweep';
import { RETENTION_BATCH, RetentionService } from '../../../src/modules/retention/application/retention.service';
import { InMemoryObjectStorage } from '../../../src/modules/storage/adapters/in-memory/in-memory.object-storage';

async function world(retentionHours: string) {
  const clock = FixedClock.at('2026-01-02T12:00:00Z');
  const store = new InMemoryRetentionStore(() => clock.now());
  const storage = new InMemoryObjectStorage(() => clock.now());
  for (const key of ['uploads/vid_old', 'uploads/vid_new', 'outputs/job_old.webm']) await storage.put(key, Readable.from([Buffer.from(key)]));
  store.addUpload('vid_old', 'uploads/vid_old', new Date('2026-01-02T09:00:00Z'));
  store.addUpload('vid_new', 'uploads/vid_new', new Date('2026-01-02T11:30:00Z'));
  store.addOutput('job_old', 'outputs/job_old.webm', new Date('2026-01-01T12:00:00Z'));
  return { store, storage, retention: new RetentionService(store, storage, clock, new OrphanSweep(store, storage, clock), loadConfig({ RETENTION_HOURS: retentionHours })) };
}

describe('RetentionService', () => {
  it('deletes the files older than RETENTION_HOURS and marks their rows, keeping younger ones', async () => {
    const { store, storage, retention } = await world('2');
    expect(await retention.purge()).toEqual({ uploads: 1, outputs: 1, orphans: 0 });
    expect(await storage.stat('uploads/vid_old')).toBeNull();
    expect(await storage.stat('outputs/job_old.webm')).toBeNull();
    expect(await storage.stat('uploads/vid_new')).not.toBeNull();
    expect([store.isDeleted('vid_old'), store.isDeleted('job_old'), store.isDeleted('vid_new')]).toEqual([true, true, false]);
    expect(await retention.purge()).toEqual({ uploads: 0, outputs: 0, orphans: 0 });
  });

  it(`deletes every expired file in one run, batch after batch (${2 * RETENTION_BATCH + 1} uploads, ${RETENTION_BATCH} outputs)`, async () => {
    const { store, storage, retention } = await world('2');
    const old = new Date('2026-01-01T00:00:00Z');
    for (let i = 0; i < 2 * RETENTION_BATCH; i += 1) store.addUpload(`vid_${i}`, `uploads/vid_${i}`, old);
    for (let i = 1; i < RETENTION_BATCH; i += 1) store.addOutput(`job_${i}`, `outputs/job_${i}.webm`, old);
    expect(await retention.purge()).toEqual({ uploads: 2 * RETENTION_BATCH + 1, outputs: RETENTION_BATCH, orphans: 0 });
    expect(await storage.stat('uploads/vid_new')).not.toBeNull();
    expect(await retention.purge()).toEqual({ uploads: 0, outputs: 0, orphans: 0 });
  });

  it("leaves an upload that a job started reading while the batch's earlier files were deleted (its input went under it)", async () => {
    const { store, storage, retention } = await world('2');
    await storage.put('uploads/vid_b', Readable.from([Buffer.from('b')]));
    store.addUpload('vid_b', 'uploads/vid_b', new Date('2026-01-02T09:30:00Z'));
    const remove = storage.delete.bind(storage);
    jest.spyOn(storage, 'delete').mockImplementation(async (key) => {
      if (key === 'uploads/vid_old') store.addReader('vid_b');
      return remove(key);
    });
    expect(await retention.purge()).toEqual({ uploads: 1, outputs: 1, orphans: 0 });
    expect(await storage.stat('uploads/vid_b')).not.toBeNull();
    expect(store.isDeleted('vid_b')).toBe(false);
  });

  it("marks an output deleted before its file goes (the job's view handed out a URL to a file already gone), and takes the mark back when the file stays", async () => {
    const { store, storage, retention } = await world('2');
    const remove = storage.delete.bind(storage);
    const markedWhenDeleted: boolean[] = [];
    jest.spyOn(storage, 'delete').mockImplementation(async (key) => {
      if (key === 'outputs/job_old.webm') {
        markedWhenDeleted.push(store.isDeleted('job_old'));
        if (markedWhenDeleted.length === 1) throw new Error('connect ECONNREFUSED 10.0.0.5:9000');
      }
      return remove(key);
    });
    await expect(retention.purge()).rejects.toThrow(/ECONNREFUSED/);
    expect(store.isDeleted('job_old')).toBe(false);
    expect(await retention.purge()).toEqual({ uploads: 0, outputs: 1, orphans: 0 });
    expect(markedWhenDeleted).toEqual([true, true]);
    expect(store.isDeleted('job_old')).toBe(true);
  });

  it('an upload whose file could not be deleted stays, for a later run', async () => {
    const { store, storage, retention } = await world('2');
    jest.spyOn(storage, 'delete').mockRejectedValueOnce(new Error('connect ECONNREFUSED 10.0.0.5:9000'));
    await expect(retention.purge()).rejects.toThrow(/ECONNREFUSED/);
    expect(store.isDeleted('vid_old')).toBe(false);
    expect(await retention.purge()).toEqual({ uploads: 1, outputs: 1, orphans: 0 });
  });

  it('keeps everything when RETENTION_HOURS is 0', async () => {
    const { storage, retention } = await world('0');
    expect(await retention.purge()).toEqual({ uploads: 0, outputs: 0, orphans: 0 });
    expect(await storage.stat('uploads/vid_old')).not.toBeNull();
  });
});
