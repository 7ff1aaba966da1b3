import { mkdtemp, rm, writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { FilesUrls, UrlSigner } from '../../application/url-signer';
import { assertSafeKey, ByteRange, ObjectNotFoundError, ObjectStorage, StoredObject } from '../../ports/object-storage';

async function bytesOf(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

/**
 * Objects in a Map, with the port's rules: unsafe keys refused, a failed stream leaves the earlier
 * object, ranges inclusive, withLocalFile on a temporary copy. Once `serveAt` names the API that
 * serves it (the app's FilesController reads through this port), signed URLs are the API's `/files`
 * URLs, as local disk's are; before that they are `memory://` names nothing serves, and check() says so.
 */
export class InMemoryObjectStorage extends ObjectStorage {
  private readonly objects = new Map<string, Buffer>();
  private urls?: FilesUrls;

  /** Signs URLs served by the API at `publicBaseUrl` (its FilesController, with the app's signer). */
  serveAt(publicBaseUrl: string, signer: UrlSigner): this {
    this.urls = new FilesUrls(publicBaseUrl, signer);
    return this;
  }

  async put(key: string, body: Readable): Promise<StoredObject> {
    assertSafeKey(key);
    const bytes = await bytesOf(body);
    this.objects.set(key, bytes);
    return { key, size: bytes.length };
  }

  async putFile(key: string, localPath: string): Promise<StoredObject> {
    assertSafeKey(key);
    const bytes = await readFile(localPath);
    this.objects.set(key, bytes);
    return { key, size: bytes.length };
  }

  async openRead(key: string, range?: ByteRange): Promise<Readable> {
    const bytes = this.bytes(key);
    return Readable.from([range ? bytes.subarray(range.start, range.end + 1) : bytes]);
  }

  async stat(key: string): Promise<StoredObject | null> {
    assertSafeKey(key);
    const bytes = this.objects.get(key);
    return bytes ? { key, size: bytes.length } : null;
  }

  async delete(key: string): Promise<void> {
    assertSafeKey(key);
    this.objects.delete(key);
  }

  async withLocalFile<T>(key: string, use: (localPath: string) => Promise<T>): Promise<T> {
    const bytes = this.bytes(key);
    const dir = await mkdtemp(path.join(tmpdir(), 'in-memory-object-'));
    try {
      const file = path.join(dir, path.basename(key));
      await writeFile(file, bytes);
      return await use(file);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async signedDownloadUrl(key: string, ttlSeconds: number, downloadName?: string): Promise<string> {
    assertSafeKey(key);
    if (this.urls) return this.urls.download(key, ttlSeconds, downloadName);
    return `memory://download/${key}?ttl=${ttlSeconds}${downloadName ? `&name=${encodeURIComponent(downloadName)}` : ''}`;
  }

  async signedUploadUrl(key: string, ttlSeconds: number): Promise<string> {
    assertSafeKey(key);
    if (this.urls) return this.urls.upload(key, ttlSeconds);
    return `memory://upload/${key}?ttl=${ttlSeconds}`;
  }

  async check(): Promise<string> {
    return this.urls ? 'ok' : 'signed URLs are memory:// names nothing serves (serveAt was not called)';
  }

  private bytes(key: string): Buffer {
    assertSafeKey(key);
    const bytes = this.objects.get(key);
    if (!bytes) throw new ObjectNotFoundError(key);
    return bytes;
  }
}
