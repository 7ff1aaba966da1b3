import type { Readable } from 'node:stream';
import { DomainError } from '../../../common/errors/domain-error';

export interface StoredObject {
  key: string;
  size: number;
}

/** An object found by `list` or `stat`, with when it was last written. */
export interface ListedObject extends StoredObject {
  modifiedAt: Date;
}

export class ObjectNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`No stored object ${key}`);
    this.name = 'ObjectNotFoundError';
  }
}

/** `storage.openRead` for a response: an object deleted since it was looked up (retention's sweep) is the API's `gone`, not a server error */
export async function openReadOrGone(storage: ObjectStorage, key: string, range?: ByteRange): Promise<Readable> {
  try {
    return await storage.openRead(key, range);
  } catch (error) {
    if (error instanceof ObjectNotFoundError) throw new DomainError('gone', 'This file is no longer available');
    throw error;
  }
}

/**
 * The object's bytes to answer a request with: opened for a GET; for a HEAD (Express answers it with
 * the GET route) not read at all, only found, and null. A piped object was read whole for a HEAD and
 * dropped: a 500 MB read from disk, or from S3, for each.
 */
export async function openForAnswer(storage: ObjectStorage, key: string, method: string, range?: ByteRange): Promise<Readable | null> {
  if (method !== 'HEAD') return openReadOrGone(storage, key, range);
  if (!(await storage.stat(key))) throw new DomainError('gone', 'This file is no longer available');
  return null;
}

/** Bytes `start` to `end` of an object, both inclusive (as in an HTTP Range header). */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where uploads, fetched inputs and outputs live. Keys are relative paths like `uploads/vid_x` or
 * `outputs/job_x.webm`; every method refuses an unsafe key (see `assertSafeKey`), so no key escapes
 * the adapter's root. Adapters: local disk (`adapters/local`) and S3-compatible buckets (`adapters/s3`);
 * test/contract/object-storage.contract.spec.ts is the behaviour each of them must show.
 */
export abstract class ObjectStorage {
  /** Streams `body` to `key` without buffering it; on a stream error nothing is left behind (an earlier object at `key` stays). */
  abstract put(key: string, body: Readable): Promise<StoredObject>;
  abstract putFile(key: string, localPath: string): Promise<StoredObject>;
  /** The object's bytes, or the range of them; rejects with ObjectNotFoundError when there is no object. */
  abstract openRead(key: string, range?: ByteRange): Promise<Readable>;
  abstract stat(key: string): Promise<ListedObject | null>;
  /** Removes the object; deleting a missing key is not an error. */
  abstract delete(key: string): Promise<void>;
  /** Every object whose key starts with `prefix` (a folder: `chunks/`), in no promised order, read a page at a time. */
  abstract list(prefix: string): AsyncIterable<ListedObject>;
  /**
   * Removes what writes under `prefix` cut short (a process killed mid-write) left behind, begun
   * before `before`: local disk's `.partial` files. S3 keeps no partial object (an unfinished
   * multipart upload's parts are removed by the bucket's lifecycle rule, docs/configuration.md), nor
   * does memory. Answers how many went. Empty folders under `prefix` unchanged since `before` go
   * too, where there are folders (local disk).
   */
  abstract removeInterruptedWrites(prefix: string, before: Date): Promise<number>;
  /** A local file holding the object for the duration of `use` (the path itself for local disk; a temporary copy, removed afterwards, for S3). */
  abstract withLocalFile<T>(key: string, use: (path: string) => Promise<T>): Promise<T>;
  /** A URL a client can GET without credentials until it expires; with `downloadName`, served as an attachment of that name. */
  abstract signedDownloadUrl(key: string, ttlSeconds: number, downloadName?: string): Promise<string>;
  /**
   * A URL a client can PUT the object's bytes to (the request body is the whole object) without
   * credentials until it expires; it replaces any object at `key`. For remote workers' outputs.
   */
  abstract signedUploadUrl(key: string, ttlSeconds: number): Promise<string>;
  /** Whether the adapter is configured and reachable: 'ok' or a reason. */
  abstract check(): Promise<string>;
}

export function assertSafeKey(key: string): void {
  if (!/^[A-Za-z0-9_-]+(\/[A-Za-z0-9_.-]+)*$/.test(key) || key.split('/').some((part) => part === '..' || part === '.')) {
    throw new Error(`Unsafe storage key: ${key}`);
  }
}
