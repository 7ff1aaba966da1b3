/** A stored file past its retention age: the row that names it and its storage key. */
export interface ExpiredFile {
  id: string;
  key: string;
}

/** A job's hold on its stored files: every file it works with while it runs, then its output until that is deleted. */
export interface JobFiles {
  running: boolean;
  /** its output's key while the output is kept (completed, not yet deleted by retention) */
  outputKey: string | null;
}

/**
 * Finds uploads and job outputs older than a cutoff that are not yet deleted, oldest first, at most
 * `limit` at a time, and marks them deleted (the rows stay, so their URLs answer 410 Gone and
 * history and billing stay intact). An upload that a pending or processing job reads is not
 * expired until that job ends: its file was deleted under a running job, which failed.
 */
export abstract class RetentionStore {
  abstract expiredUploads(cutoff: Date, limit: number): Promise<ExpiredFile[]>;
  /**
   * Marks an expired upload deleted before its file goes, unless a pending or processing job reads
   * it by now (one started since it was found: false). Checked only when it was found, a job started
   * while the batch's files were deleted, one by one, had its input deleted under it.
   */
  abstract claimUpload(id: string): Promise<boolean>;
  /** takes a claim back: the file could not be deleted, and a later sweep tries again */
  abstract unclaimUpload(id: string): Promise<void>;
  abstract expiredOutputs(cutoff: Date, limit: number): Promise<ExpiredFile[]>;
  /** marked before its file goes, so that no job view hands out a URL to a file already gone */
  abstract markOutputDeleted(id: string): Promise<void>;
  /** takes the mark back: the file could not be deleted, and a later run tries again */
  abstract unmarkOutputDeleted(id: string): Promise<void>;
  /** these uploads' rows by id: whether each is marked deleted (its file no longer needed); no row, no entry */
  abstract uploadRows(ids: readonly string[]): Promise<Map<string, { deleted: boolean }>>;
  /** these jobs' holds on their files, by id; a job with no row is absent */
  abstract jobFiles(ids: readonly string[]): Promise<Map<string, JobFiles>>;
}
