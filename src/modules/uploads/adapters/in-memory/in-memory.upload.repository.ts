import type { Snapshottable } from '../../../../common/in-memory.unit-of-work';
import { Upload } from '../../domain/upload';
import { UploadRepository } from '../../ports/upload.repository';

/** Upload rows in a Map; reads are scoped to the owner, as in Postgres. */
export class InMemoryUploadRepository extends UploadRepository implements Snapshottable {
  private uploads = new Map<string, Upload>();
  /** when set, reads fail (a database that is down) */
  failing = false;

  snapshot(): () => void {
    const saved = new Map([...this.uploads].map(([id, upload]) => [id, { ...upload }]));
    return () => {
      this.uploads = saved;
    };
  }

  async insert(upload: Upload): Promise<void> {
    if (this.uploads.has(upload.id)) throw new Error(`duplicate upload id ${upload.id}`);
    this.uploads.set(upload.id, { ...upload, deletedAt: upload.deletedAt ?? null });
  }

  /** the in-memory unit of work runs one transaction at a time: nothing to hold */
  async holdForStart(id: string): Promise<'kept' | 'deleted'> {
    const upload = this.uploads.get(id);
    return upload && !upload.deletedAt ? 'kept' : 'deleted';
  }

  async findOwned(id: string, apiKeyId: string): Promise<Upload | null> {
    if (this.failing) throw new Error('the database is down');
    const upload = this.uploads.get(id);
    return upload && upload.apiKeyId === apiKeyId ? { ...upload } : null;
  }

  async eraseClientContent(apiKeyId: string, now: Date): Promise<{ uploads: number; storageKeys: string[] }> {
    const owned = [...this.uploads.values()].filter((upload) => upload.apiKeyId === apiKeyId);
    for (const upload of owned) this.uploads.set(upload.id, { ...upload, filename: '', deletedAt: upload.deletedAt ?? now });
    return { uploads: owned.length, storageKeys: owned.map((upload) => upload.storageKey) };
  }
}
