import { mkdtemp, rm, writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { FilesUrls, UrlSigner } from '../../application/url-signer';
import { assertSafeKey, ByteRange, ListedObject, ObjectNotFoundError, ObjectStorage, StoredObject } from '../../ports/object-storage';

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
  private readonly objects = new Map<string, { bytes: Buffer; modifiedAt: Date }>();
  private urls?: FilesUrls;

  /** `now`: when each object is written (a test's clock) */
  constructor(private readonly now: () => Date = () => new Date()) {
    super();
  }

  /** Signs URLs served by the API at `publicBaseUrl` (its FilesController, with the app's signer). */
  serveAt(publicBaseUrl: string, signer: UrlSigner): this {
    this.urls = new FilesUrls(publicBaseUrl, signer);
    return this;
  }

  async put(key: string, body: Readable): Promise<StoredObject> {
    assertSafeKey(key);
    return this.keep(key, await bytesOf(body));
  }

  async putFile(key: string, localPath: string): Promise<StoredObject> {
    assertSafeKey(key);
    return this.keep(key, await readFile(localPath));
  }

  async openRead(key: string, range?: ByteRange): Promise<Readable> {
    const bytes = this.bytes(key);
    return Readable.from([range ? bytes.subarray(range.start, range.end + 1) : bytes]);
  }

  async stat(key: string): Promise<ListedObject | null> {
    assertSafeKey(key);
    const object = this.objects.get(key);
    return object ? { key, size: object.bytes.length, modifiedAt: object.modifiedAt } : null;
  }

  async delete(key: string): Promise<void> {
    assertSafeKey(key);
    this.objects.delete(key);
  }

  async *list(prefix: string): AsyncIterable<ListedObject> {
    for (const [key, { bytes, modifiedAt }] of [...this.objects]) if (key.startsWith(prefix)) yield { key, size: bytes.length, modifiedAt };
  }

  /** a write here is whole or not at all: nothing is ever left behind */
  async removeInterruptedWrites(): Promise<number> {
    return 0;
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

  private keep(key: string, bytes: Buffer): StoredObject {
    this.objects.set(key, { bytes, modifiedAt: this.now() });
    return { key, size: bytes.length };
  }

  private bytes(key: string): Buffer {
    assertSafeKey(key);
    const object = this.objects.get(key);
    if (!object) throw new ObjectNotFoundError(key);
    return object.bytes;
  }
}
