import { Readable } from 'node:stream';
import { FixedClock } from '../../../src/common/clock';
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

  it('removes the files of jobs that ended: chunks, fetched inputs, an output the job does not name', async () => {
    const { store, stored, present, sweep } = world();
    store.addJob('job_failed').end();
    store.addOutput('job_done', storageKeys.output('job_done', 'webm'), new Date('2026-01-01T00:00:00Z'));
    const orphans = [
      await stored(storageKeys.chunk('job_failed', 0, 'webm'), old),
      await stored(storageKeys.fetchedVideo('job_failed'), old),
      await stored(storageKeys.fetchedBackground('job_done'), old),
      await stored(storageKeys.output('job_failed', 'webm'), old),
      await stored(storageKeys.output('job_done', 'gif'), old),
      // no row at all
      await stored(storageKeys.chunk('job_gone', 3, 'mov'), old),
    ];
    const kept = await stored(storageKeys.output('job_done', 'webm'), old);
    expect(await sweep.sweep()).toBe(orphans.length);
    expect(await present(...orphans)).toEqual(orphans.map(() => false));
    expect(await present(kept)).toEqual([true]);
  });

  it('keeps every file of a job that runs, and its output once completed until retention deletes it', async () => {
    const { store, stored, present, sweep } = world();
    store.addJob('job_running');
    const running = [await stored(storageKeys.chunk('job_running', 0, 'webm'), old), await stored(storageKeys.fetchedVideo('job_running'), old), await stored(storageKeys.output('job_running', 'webm'), old)];
    const output = await stored(storageKeys.output('job_done', 'webm'), old);
    store.addOutput('job_done', output, new Date('2026-01-01T00:00:00Z'));
    expect(await sweep.sweep()).toBe(0);
    expect(await present(...running, output)).toEqual([true, true, true, true]);
    // retention marked the output deleted but its file stayed (the process died before the delete)
    await store.markOutputDeleted('job_done');
    expect(await sweep.sweep()).toBe(1);
    expect(await present(output)).toEqual([false]);
  });

  it("removes an upload's body that no row names, or whose row is marked deleted; keeps the others", async () => {
    const { store, stored, present, sweep } = world();
    const kept = await stored(storageKeys.upload('vid_kept'), old);
    store.addUpload('vid_kept', kept, new Date('2026-01-01T00:00:00Z'));
    const claimed = await stored(storageKeys.upload('vid_claimed'), old);
    store.addUpload('vid_claimed', claimed, new Date('2026-01-01T00:00:00Z'));
    expect(await store.claimUpload('vid_claimed')).toBe(true);
    const rowless = await stored(storageKeys.upload('vid_rowless'), old);
    expect(await sweep.sweep()).toBe(2);
    expect(await present(kept, claimed, rowless)).toEqual([true, false, false]);
  });

  it(`never looks at a file younger than ${ORPHAN_MIN_AGE_HOURS} h (an upload's row is written after its body), nor at a key the layout does not make`, async () => {
    const { stored, present, sweep } = world();
    const young = await stored(storageKeys.upload('vid_rowless'), ORPHAN_MIN_AGE_HOURS - 0.01);
    const foreign = [await stored('uploads/notes/readme.txt', old), await stored('outputs/job_x', old), await stored('backups/db.sql', old)];
    expect(await sweep.sweep()).toBe(0);
    expect(await present(young, ...foreign)).toEqual([true, true, true, true]);
  });

  it('checks the rows of hundreds of files a batch at a time and removes every orphan', async () => {
    const { store, stored, present, sweep } = world();
    store.addJob('job_running');
    for (let i = 0; i < 450; i++) await stored(storageKeys.chunk(i % 2 ? 'job_running' : 'job_ended', i, 'webm'), old);
    const jobFiles = jest.spyOn(store, 'jobFiles');
    expect(await sweep.sweep()).toBe(225);
    expect(jobFiles).toHaveBeenCalledTimes(3);
    expect(await present(storageKeys.chunk('job_ended', 0, 'webm'), storageKeys.chunk('job_running', 449, 'webm'))).toEqual([false, true]);
  });
});
