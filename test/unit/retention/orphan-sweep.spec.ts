import { Readable } from 'node:stream';
import { FixedClock } from '../../../src/common/clock';
import { newJobId, newUploadId } from '../../../src/common/ids';
import { storageKeys } from '../../../src/common/storage-keys';
import { InMemoryRetentionStore } from '../../../src/modules/retention/adapters/in-memory/in-memory.retention-store';
import { ORPHAN_MIN_AGE_HOURS, OrphanSweep } from '../../../src/modules/retention/application/orphan-sweep';
import { InMemoryObjectStorage } from '../../../src/modules/storage/adapters/in-memory/in-memory.object-storage';

const HOUR = 3600_000;

function world() {
  const clock = FixedClock.at('2026-01-10T12:00:00Z');
  const store = new InMemoryRetentionStore(() => clock.now());
  let writtenAt = clock.now();
  const storage = new InMemoryObjectStorage(() => writtenAt);
  /** a file stored `hoursAgo` hours before the sweep */
  const stored = async (key: string, hoursAgo: number) => {
    writtenAt = new Date(clock.now().getTime() - hoursAgo * HOUR);
    await storage.put(key, Readable.from([Buffer.from(key)]));
    return key;
  };
  const present = async (...keys: string[]) => (await Promise.all(keys.map((key) => storage.stat(key)))).map(Boolean);
  return { store, storage, stored, present, sweep: new OrphanSweep(store, storage, clock) };
}

describe('OrphanSweep', () => {
  const old = ORPHAN_MIN_AGE_HOURS + 1;

  it("keeps a job's files that no row names, however few (a job's row is written before its files: they are another deployment's)", async () => {
    const { stored, present, sweep } = world();
    const files = [await stored(storageKeys.chunk(newJobId(), 0, 'webm'), old), await stored(storageKeys.output(newJobId(), 'mov'), old)];
    expect(await sweep.sweep()).toBe(0);
    expect(await present(...files)).toEqual([true, true]);
  });

  it('removes the files of jobs that ended: chunks, fetched inputs, an output the job does not name', async () => {
    const { store, stored, present, sweep } = world();
    const [failed, done] = [newJobId(), newJobId()];
    store.addJob(failed).end();
    store.addOutput(done, storageKeys.output(done, 'webm'), new Date('2026-01-01T00:00:00Z'));
    const orphans = [
      await stored(storageKeys.chunk(failed, 0, 'webm'), old),
      await stored(storageKeys.fetchedVideo(failed), old),
      await stored(storageKeys.fetchedBackground(done), old),
      await stored(storageKeys.output(failed, 'webm'), old),
      await stored(storageKeys.output(done, 'gif'), old),
    ];
    const kept = await stored(storageKeys.output(done, 'webm'), old);
    expect(await sweep.sweep()).toBe(orphans.length);
    expect(await present(...orphans)).toEqual(orphans.map(() => false));
    expect(await present(kept)).toEqual([true]);
  });

  it('keeps every file of a job that runs, and its output once completed until retention deletes it', async () => {
    const { store, stored, present, sweep } = world();
    const [running, done] = [newJobId(), newJobId()];
    store.addJob(running);
    const files = [await stored(storageKeys.chunk(running, 0, 'webm'), old), await stored(storageKeys.fetchedVideo(running), old), await stored(storageKeys.output(running, 'webm'), old)];
    const output = await stored(storageKeys.output(done, 'webm'), old);
    store.addOutput(done, output, new Date('2026-01-01T00:00:00Z'));
    expect(await sweep.sweep()).toBe(0);
    expect(await present(...files, output)).toEqual([true, true, true, true]);
    // retention marked the output deleted but its file stayed (the process died before the delete)
    await store.markOutputDeleted(done);
    expect(await sweep.sweep()).toBe(1);
    expect(await present(output)).toEqual([false]);
  });

  it("removes an upload's body whose row is marked deleted, or that no row names (a few: the row was never written); keeps the others", async () => {
    const { store, stored, present, sweep } = world();
    const [kept, claimed, rowless] = [newUploadId(), newUploadId(), newUploadId()];
    store.addUpload(kept, await stored(storageKeys.upload(kept), old), new Date('2026-01-01T00:00:00Z'));
    store.addUpload(claimed, await stored(storageKeys.upload(claimed), old), new Date('2026-01-01T00:00:00Z'));
    expect(await store.claimUpload(claimed)).toBe(true);
    await stored(storageKeys.upload(rowless), old);
    expect(await sweep.sweep()).toBe(2);
    expect(await present(storageKeys.upload(kept), storageKeys.upload(claimed), storageKeys.upload(rowless))).toEqual([true, false, false]);
  });

  it(`never looks at a file younger than ${ORPHAN_MIN_AGE_HOURS} h (an upload's row is written after its body), nor at a key not of this service's shape (a bucket shared with other data)`, async () => {
    const { stored, present, sweep } = world();
    const young = await stored(storageKeys.upload(newUploadId()), ORPHAN_MIN_AGE_HOURS - 0.01);
    const foreign = ['uploads/logo', 'uploads/avatar_123', 'outputs/report_2024.pdf', 'outputs/invoice.csv', 'inputs/data', 'chunks/backup/1.tar', 'uploads/notes/readme.txt', 'backups/db.sql', `outputs/${newJobId()}`];
    for (const key of foreign) await stored(key, old);
    expect(await sweep.sweep()).toBe(0);
    expect(await present(young, ...foreign)).toEqual([young, ...foreign].map(() => true));
  });

  it("keeps files whose jobs and uploads this database has no row for when they are many (another deployment's in the same bucket, or the wrong DATABASE_URL)", async () => {
    const { store, stored, present, sweep } = world();
    const ended = newJobId();
    store.addJob(ended).end();
    const theirs = [];
    for (let i = 0; i < 20; i++) theirs.push(await stored(i % 2 ? storageKeys.upload(newUploadId()) : storageKeys.output(newJobId(), 'webm'), old));
    const ours = await stored(storageKeys.chunk(ended, 0, 'webm'), old);
    expect(await sweep.sweep()).toBe(1);
    expect(await present(ours, ...theirs)).toEqual([false, ...theirs.map(() => true)]);
  });

  it('checks the rows of hundreds of files a batch at a time and removes every orphan', async () => {
    const { store, stored, present, sweep } = world();
    const [running, ended] = [newJobId(), newJobId()];
    store.addJob(running);
    store.addJob(ended).end();
    for (let i = 0; i < 450; i++) await stored(storageKeys.chunk(i % 2 ? running : ended, i, 'webm'), old);
    const jobFiles = jest.spyOn(store, 'jobFiles');
    expect(await sweep.sweep()).toBe(225);
    expect(jobFiles).toHaveBeenCalledTimes(3);
    expect(await present(storageKeys.chunk(ended, 0, 'webm'), storageKeys.chunk(running, 449, 'webm'))).toEqual([false, true]);
  });
});
