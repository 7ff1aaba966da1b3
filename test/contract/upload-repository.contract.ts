import { newUploadId } from '../../src/common/ids';
import { Upload } from '../../src/modules/uploads/domain/upload';
import { UploadRepository } from '../../src/modules/uploads/ports/upload.repository';

/** What every UploadRepository must do (on Postgres in repositories.contract.spec.ts, in memory in in-memory.contract.spec.ts). */
export function describeUploadRepositoryContract(uploads: () => UploadRepository, newOwner: () => Promise<string>): void {
  describe('UploadRepository contract', () => {
    const anUpload = (apiKeyId: string): Upload => {
      const id = newUploadId();
      return { id, apiKeyId, storageKey: `uploads/${id}`, filename: 'a.mp4', size: 123, contentType: 'video/mp4', durationSeconds: 4.5, frameRate: 29.97, createdAt: new Date('2026-02-03T04:05:06.789Z') };
    };

    it('reads every field of an upload back, scoped to its owner', async () => {
      const [owner, stranger] = [await newOwner(), await newOwner()];
      const upload = anUpload(owner);
      await uploads().insert(upload);
      expect(await uploads().findOwned(upload.id, owner)).toMatchObject({ ...upload, deletedAt: null });
      expect(await uploads().findOwned(upload.id, stranger)).toBeNull();
      expect(await uploads().findOwned(newUploadId(), owner)).toBeNull();
    });

    it('refuses a second upload under the same id', async () => {
      const upload = anUpload(await newOwner());
      await uploads().insert(upload);
      await expect(uploads().insert({ ...upload, filename: 'b.mp4' })).rejects.toThrow();
      expect((await uploads().findOwned(upload.id, upload.apiKeyId))?.filename).toBe('a.mp4');
    });

    it("says, held for a job's start, whether an upload is still there (one deleted or never stored is not)", async () => {
      const upload = anUpload(await newOwner());
      await uploads().insert(upload);
      const deleted = { ...anUpload(upload.apiKeyId), deletedAt: new Date('2026-02-04T00:00:00Z') };
      await uploads().insert(deleted);
      expect([await uploads().holdForStart(upload.id), await uploads().holdForStart(deleted.id), await uploads().holdForStart(newUploadId())]).toEqual(['kept', 'deleted', 'deleted']);
    });

    it("erases a key's uploads: each marked deleted (one deleted before keeps its time) and nameless, every storage key answered; another key's are untouched", async () => {
      const [owner, stranger] = [await newOwner(), await newOwner()];
      const kept = anUpload(owner);
      const deletedBefore = { ...anUpload(owner), deletedAt: new Date('2026-02-04T00:00:00Z') };
      const strangers = anUpload(stranger);
      for (const upload of [kept, deletedBefore, strangers]) await uploads().insert(upload);
      const now = new Date('2026-03-01T00:00:00Z');
      const erased = await uploads().eraseClientContent(owner, now);
      expect(erased.uploads).toBe(2);
      expect([...erased.storageKeys].sort()).toEqual([kept.storageKey, deletedBefore.storageKey].sort());
      expect(await uploads().findOwned(kept.id, owner)).toMatchObject({ filename: '', deletedAt: now, size: kept.size });
      expect(await uploads().findOwned(deletedBefore.id, owner)).toMatchObject({ filename: '', deletedAt: deletedBefore.deletedAt });
      expect(await uploads().findOwned(strangers.id, stranger)).toMatchObject({ filename: 'a.mp4', deletedAt: null });
      expect(await uploads().holdForStart(kept.id)).toBe('deleted');
    });
  });
}
