/** What an erasure of a key's data removed. */
export interface ErasedKeyData {
  /** jobs ended first (pending or processing when the erasure began) */
  jobsEnded: number;
  /** jobs whose client content was erased; their rows stay for accounting */
  jobs: number;
  uploads: number;
  /** stored files deleted: uploads' videos, jobs' outputs, and the inputs and chunks of the jobs it ended (those already gone counted too) */
  files: number;
}

/**
 * Erases what a key's client left with the service (an operator's answer to a request for erasure):
 * its videos, outputs, URLs, metadata, prompts, webhook deliveries and idempotent responses. What
 * was done, when, and what it cost stay, for accounting. It disables the key. Running it again is
 * safe, and deletes what a storage failure left.
 */
export abstract class KeyDataEraser {
  abstract erase(key: { id: string; fingerprint: string }): Promise<ErasedKeyData>;
}
