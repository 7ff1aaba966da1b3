import { ID_LENGTH, ID_PREFIX } from '../contract/ids';

/**
 * Where each kind of file lives in object storage: the one place the key layout is written.
 * Retention's sweep reads a key back to the row that needs it (storageKeyOwner); a key of any
 * other shape is never taken for an orphan.
 */
export const storageKeys = {
  upload: (uploadId: string): string => `uploads/${uploadId}`,
  /** a job's video fetched from its URL, kept while it runs */
  fetchedVideo: (jobId: string): string => `inputs/${jobId}`,
  /** a job's background image fetched from its URL, kept while it runs */
  fetchedBackground: (jobId: string): string => `inputs/${jobId}-background`,
  output: (jobId: string, extension: string): string => `outputs/${jobId}.${extension}`,
  /** one chunk's output of a long job, until the join */
  chunk: (jobId: string, index: number, extension: string): string => `chunks/${jobId}/${index}.${extension}`,
  /** the folder of a long job's chunks (a prefix to list) */
  chunksOf: (jobId: string): string => `chunks/${jobId}/`,
};

/** the folders the layout uses, each read by the sweep */
export const STORAGE_FOLDERS = ['uploads/', 'inputs/', 'outputs/', 'chunks/'] as const;

/** the row a stored file belongs to: an upload, or a job (`output`: the job's output, not a file it works with) */
export type StorageKeyOwner = { upload: string } | { job: string; output: boolean };

/** an id of the contract's shape only: a key with another name in these folders is not this service's */
const JOB = `(${ID_PREFIX.job}[0-9A-Za-z]{${ID_LENGTH.job}})`;
const UPLOAD = `(${ID_PREFIX.upload}[0-9A-Za-z]{${ID_LENGTH.upload}})`;
const OWNERS: ReadonlyArray<[RegExp, (id: string) => StorageKeyOwner]> = [
  [new RegExp(`^uploads/${UPLOAD}$`), (id) => ({ upload: id })],
  [new RegExp(`^inputs/${JOB}(?:-background)?$`), (id) => ({ job: id, output: false })],
  [new RegExp(`^outputs/${JOB}\\.[a-z0-9]+$`), (id) => ({ job: id, output: true })],
  [new RegExp(`^chunks/${JOB}/\\d+\\.[a-z0-9]+$`), (id) => ({ job: id, output: false })],
];

/** the row that `key` belongs to, or undefined for a key this layout does not make */
export function storageKeyOwner(key: string): StorageKeyOwner | undefined {
  for (const [pattern, owner] of OWNERS) {
    const id = pattern.exec(key)?.[1];
    if (id) return owner(id);
  }
  return undefined;
}
