import { ExpiredFile, JobFiles, RetentionStore } from '../../ports/retention-store';

interface StoredFile {
  id: string;
  key: string;
  /** created_at of an upload, completed_at of a job's output */
  at: Date;
  deletedAt: Date | null;
}

/** Uploads and outputs with their ages in memory (`addUpload`, `addOutput`), deleted marks readable (`isDeleted`). */
export class InMemoryRetentionStore extends RetentionStore {
  private readonly uploads = new Map<string, StoredFile>();
  private readonly outputs = new Map<string, StoredFile>();
  /** how many pending or processing jobs read each upload */
  private readonly readers = new Map<string, number>();
  /** jobs added with addJob: whether each still runs */
  private readonly jobs = new Map<string, boolean>();

  constructor(private readonly now: () => Date = () => new Date()) {
    super();
  }

  addUpload(id: string, key: string, createdAt: Date): void {
    this.uploads.set(id, { id, key, at: createdAt, deletedAt: null });
  }

  /** a pending or processing job reads upload `uploadId` until `end()` */
  addReader(uploadId: string): { end(): void } {
    this.readers.set(uploadId, (this.readers.get(uploadId) ?? 0) + 1);
    return { end: () => this.readers.set(uploadId, (this.readers.get(uploadId) ?? 1) - 1) };
  }

  /** a job that runs (created, pending or processing) until `end()` (failed) */
  addJob(jobId: string): { end(): void } {
    this.jobs.set(jobId, true);
    return { end: () => void this.jobs.set(jobId, false) };
  }

  addOutput(jobId: string, key: string, completedAt: Date): void {
    this.outputs.set(jobId, { id: jobId, key, at: completedAt, deletedAt: null });
  }

  isDeleted(id: string): boolean {
    return Boolean((this.uploads.get(id) ?? this.outputs.get(id))?.deletedAt);
  }

  async expiredUploads(cutoff: Date, limit: number): Promise<ExpiredFile[]> {
    return expired(this.uploads, cutoff, limit, (file) => !this.readers.get(file.id));
  }

  async claimUpload(id: string): Promise<boolean> {
    const file = this.uploads.get(id);
    if (!file || file.deletedAt || this.readers.get(id)) return false;
    file.deletedAt = this.now();
    return true;
  }

  async unclaimUpload(id: string): Promise<void> {
    const file = this.uploads.get(id);
    if (file) file.deletedAt = null;
  }

  async expiredOutputs(cutoff: Date, limit: number): Promise<ExpiredFile[]> {
    return expired(this.outputs, cutoff, limit);
  }

  async markOutputDeleted(id: string): Promise<void> {
    const file = this.outputs.get(id);
    if (file) file.deletedAt = this.now();
  }

  async unmarkOutputDeleted(id: string): Promise<void> {
    const file = this.outputs.get(id);
    if (file) file.deletedAt = null;
  }

  async uploadRows(ids: readonly string[]): Promise<Map<string, { deleted: boolean }>> {
    return new Map(ids.filter((id) => this.uploads.has(id)).map((id) => [id, { deleted: Boolean(this.uploads.get(id)!.deletedAt) }]));
  }

  async jobFiles(ids: readonly string[]): Promise<Map<string, JobFiles>> {
    const files = new Map<string, JobFiles>();
    for (const id of ids) {
      const output = this.outputs.get(id);
      if (!this.jobs.has(id) && !output) continue;
      files.set(id, { running: this.jobs.get(id) ?? false, outputKey: output && !output.deletedAt ? output.key : null });
    }
    return files;
  }
}

function expired(files: Map<string, StoredFile>, cutoff: Date, limit: number, free: (file: StoredFile) => boolean = () => true): ExpiredFile[] {
  return [...files.values()]
    .filter((file) => !file.deletedAt && file.at < cutoff && free(file))
    .sort((a, b) => a.at.getTime() - b.at.getTime())
    .slice(0, limit)
    .map(({ id, key }) => ({ id, key }));
}
