import type { Readable } from 'node:stream';

export interface StoredObject {
  key: string;
  size: number;
}

export class ObjectNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`No stored object ${key}`);
    this.name = 'ObjectNotFoundError';
  }
}

/**
 * Where uploads, fetched inputs and outputs live. Keys are relative paths like `uploads/vid_x` or
 * `outputs/job_x.webm`; adapters never trust a key to escape their root.
 */
export abstract class ObjectStorage {
  /** Streams `body` to `key` without buffering it; on a stream error nothing is left behind. */
  abstract put(key: string, body: Readable): Promise<StoredObject>;
  abstract putFile(key: string, localPath: string): Promise<StoredObject>;
  abstract openRead(key: string, range?: { start: number; end: number }): Promise<Readable>;
  abstract stat(key: string): Promise<StoredObject | null>;
  abstract delete(key: string): Promise<void>;
  /** A local file holding the object for the duration of `use` (the path itself for local disk). */
  abstract withLocalFile<T>(key: string, use: (path: string) => Promise<T>): Promise<T>;
  /** A URL a client can GET without credentials until it expires. */
  abstract signedDownloadUrl(key: string, ttlSeconds: number, downloadName?: string): Promise<string>;
  /** Whether the adapter is configured and reachable: 'ok' or a reason. */
  abstract check(): Promise<string>;
}

export function assertSafeKey(key: string): void {
  if (!/^[A-Za-z0-9_-]+(\/[A-Za-z0-9_.-]+)*$/.test(key) || key.split('/').some((part) => part === '..' || part === '.')) {
    throw new Error(`Unsafe storage key: ${key}`);
  }
}
