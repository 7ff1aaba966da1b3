import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomBase62 } from '../../../../common/ids';
import { FilesUrls, UrlSigner } from '../../application/url-signer';
import { assertSafeKey, ByteRange, ListedObject, ObjectNotFoundError, ObjectStorage, StoredObject } from '../../ports/object-storage';

/** a write in progress, beside the name it is renamed to when whole (writeWhole) */
const PARTIAL_SUFFIX = '.partial';

/** Objects as files under one root directory; signed downloads and uploads are HMAC-signed URLs served by the API (FilesController). */
export class LocalDiskObjectStorage extends ObjectStorage {
  constructor(
    private readonly root: string,
    private readonly publicBaseUrl: string,
    private readonly signer: UrlSigner,
  ) {
    super();
  }

  pathOf(key: string): string {
    assertSafeKey(key);
    return path.join(this.root, key);
  }

  async put(key: string, body: Readable): Promise<StoredObject> {
    return this.writeWhole(key, (partial) => pipeline(body, partial.handle.createWriteStream()));
  }

  async putFile(key: string, localPath: string): Promise<StoredObject> {
    const target = this.pathOf(key);
    if (path.resolve(localPath) === target) return { key, size: (await fs.stat(target)).size };
    // the kernel's copy onto the file just created (copy_file_range), not a stream through this process
    return this.writeWhole(key, (partial) => fs.copyFile(localPath, partial.path));
  }

  /**
   * Writes the object beside its name, then renames it into place: a reader sees the old object or
   * the whole new one. Copied straight onto its name, a process killed mid-copy left a truncated
   * file that was served, and a job run twice rewrote an output while it was being downloaded.
   */
  private async writeWhole(key: string, write: (partial: { path: string; handle: FileHandle }) => Promise<unknown>): Promise<StoredObject> {
    const target = this.pathOf(key);
    const { partial, handle } = await this.createPartial(target);
    try {
      await write({ path: partial, handle });
      await fs.rename(partial, target);
    } catch (error) {
      await fs.rm(partial, { force: true });
      throw error;
    } finally {
      await handle.close().catch(() => undefined);
    }
    return { key, size: (await fs.stat(target)).size };
  }

  /**
   * The object's `.partial` file, created in its folder. A delete of the folder's last object (or
   * the sweep) may remove the folder between its mkdir and the file's creation: it is made again.
   * Once the file exists the folder is not empty, and stays.
   */
  private async createPartial(target: string): Promise<{ partial: string; handle: FileHandle }> {
    for (let attempt = 1; ; attempt++) {
      await fs.mkdir(path.dirname(target), { recursive: true });
      const partial = `${target}.${randomBase62(8)}${PARTIAL_SUFFIX}`;
      try {
        return { partial, handle: await fs.open(partial, 'wx') };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 3) throw error;
      }
    }
  }

  /**
   * The file is opened before the stream is handed back: an object deleted meanwhile (retention's
   * sweep) rejects here, before a response has begun, and one deleted after the open is still read
   * to the end (the open file outlives its name).
   */
  async openRead(key: string, range?: ByteRange): Promise<Readable> {
    const file = await fs.open(this.pathOf(key), 'r').catch(whenMissing(() => undefined));
    if (!file) throw new ObjectNotFoundError(key);
    if (!(await file.stat()).isFile()) {
      await file.close();
      throw new ObjectNotFoundError(key);
    }
    return file.createReadStream(range);
  }

  async stat(key: string): Promise<ListedObject | null> {
    const target = this.pathOf(key);
    const info = await fs.stat(target).catch(whenMissing(() => null));
    return info?.isFile() ? { key, size: info.size, modifiedAt: info.mtime } : null;
  }

  async delete(key: string): Promise<void> {
    await fs.rm(this.pathOf(key), { force: true });
    await this.removeEmptyFoldersAbove(key);
  }

  /**
   * The folders of a deleted object, deepest first, while they are empty; its top-level folder
   * (chunks/, outputs/...) stays. A long job's chunks/{job}/ folder was left empty for good: 50,000 of
   * them took 199 MB and 3 s of every hourly sweep (measured in review).
   */
  private async removeEmptyFoldersAbove(key: string): Promise<void> {
    for (let folder = path.posix.dirname(key); folder.includes('/'); folder = path.posix.dirname(folder)) {
      // refused while anything is in it (ENOTEMPTY), which ends the climb
      if (!(await fs.rmdir(path.join(this.root, folder)).then(() => true, () => false))) return;
    }
  }

  async *list(prefix: string): AsyncIterable<ListedObject> {
    for await (const file of this.files(prefix)) if (!file.key.endsWith(PARTIAL_SUFFIX)) yield file;
  }

  /** the `.partial` files written before `before`, then the empty folders under `prefix` left since then */
  async removeInterruptedWrites(prefix: string, before: Date): Promise<number> {
    let removed = 0;
    for await (const file of this.files(prefix)) {
      if (!file.key.endsWith(PARTIAL_SUFFIX) || file.modifiedAt >= before) continue;
      await fs.rm(path.join(this.root, file.key), { force: true });
      removed += 1;
    }
    if (prefix.endsWith('/')) await this.removeEmptyFoldersUnder(prefix.slice(0, -1), before);
    return removed;
  }

  /** the folders under `folder`, deepest first, that are empty and unchanged since `before` (those earlier versions left) */
  private async removeEmptyFoldersUnder(folder: string, before: Date): Promise<void> {
    const entries = await fs.opendir(path.join(this.root, folder)).catch(whenMissing(() => []));
    for await (const entry of entries) {
      if (!entry.isDirectory()) continue;
      const child = path.join(this.root, folder, entry.name);
      await this.removeEmptyFoldersUnder(`${folder}/${entry.name}`, before);
      const info = await fs.stat(child).catch(whenMissing(() => null));
      if (info && info.mtime < before) await fs.rmdir(child).catch(() => undefined);
    }
  }

  /**
   * every file under the root whose key starts with `prefix`, walked a directory at a time, each read
   * an entry at a time (the flat outputs/ and uploads/ folders were read whole: a million names at once)
   */
  private async *files(prefix: string): AsyncIterable<ListedObject> {
    const pending = [''];
    while (pending.length) {
      const directory = pending.pop()!;
      const entries = await fs.opendir(path.join(this.root, directory)).catch(whenMissing(() => []));
      for await (const entry of entries) {
        const key = directory ? `${directory}/${entry.name}` : entry.name;
        if (entry.isDirectory() && (prefix.startsWith(`${key}/`) || key.startsWith(prefix))) pending.push(key);
        if (!entry.isFile() || !key.startsWith(prefix)) continue;
        const info = await fs.stat(path.join(this.root, key)).catch(whenMissing(() => null));
        if (info) yield { key, size: info.size, modifiedAt: info.mtime };
      }
    }
  }

  async withLocalFile<T>(key: string, use: (path: string) => Promise<T>): Promise<T> {
    if (!(await this.stat(key))) throw new ObjectNotFoundError(key);
    return use(this.pathOf(key));
  }

  async signedDownloadUrl(key: string, ttlSeconds: number, downloadName = ''): Promise<string> {
    assertSafeKey(key);
    return new FilesUrls(this.publicBaseUrl, this.signer).download(key, ttlSeconds, downloadName);
  }

  async signedUploadUrl(key: string, ttlSeconds: number): Promise<string> {
    assertSafeKey(key);
    return new FilesUrls(this.publicBaseUrl, this.signer).upload(key, ttlSeconds);
  }

  async check(): Promise<string> {
    try {
      await fs.mkdir(this.root, { recursive: true });
      await fs.access(this.root, fs.constants.W_OK);
      return 'ok';
    } catch (error) {
      // the code, not the message: the public /health answer would name the directory
      return `storage directory not writable: ${(error as NodeJS.ErrnoException).code ?? 'failed'}`;
    }
  }
}

/**
 * A catch handler: a file that does not exist goes to `otherwise`, any other error goes on. A disk
 * that fails (EIO), is full or read-only, or a process out of file handles (EMFILE) said "not found":
 * a download of a finished output was answered 410 gone for good.
 */
function whenMissing<T>(otherwise: () => T): (error: unknown) => T {
  return (error) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return otherwise();
    throw error;
  };
}
