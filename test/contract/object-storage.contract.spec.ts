import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, promises as fs, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { InMemoryObjectStorage } from '../../src/modules/storage/adapters/in-memory/in-memory.object-storage';
import { LocalDiskObjectStorage } from '../../src/modules/storage/adapters/local/local-disk.object-storage';
import { S3ObjectStorage } from '../../src/modules/storage/adapters/s3/s3.object-storage';
import { UrlSigner } from '../../src/modules/storage/application/url-signer';
import { ObjectNotFoundError, ObjectStorage } from '../../src/modules/storage/ports/object-storage';
import { failingAfter, freshKey, readAll, streamOf, withFlippedSignature, withLaterExpiry } from './object-storage.helpers';
import { startS3Server } from '../support/s3-server';
import { startTestApp, swap } from '../support/test-app';

/** One adapter under test, with a second instance of it that is misconfigured. */
interface Harness {
  storage: ObjectStorage;
  misconfigured: ObjectStorage;
  /** What check() of the misconfigured instance must mention. */
  misconfiguredReason: RegExp;
  /** Whether withLocalFile hands out a temporary copy (removed afterwards) rather than the object itself. */
  localFileIsCopy: boolean;
  /** What a write cut short by a killed process leaves at `key`, where the adapter leaves anything (local disk's `.partial` file). */
  plantInterruptedWrite?(key: string): void;
  /** Whether a folder of that key prefix exists, where the adapter has folders (local disk). */
  folderExists?(prefix: string): boolean;
  close(): Promise<void>;
}

/** Local disk inside the real app, so signed URLs go through the real FilesController over HTTP. */
async function localDisk(): Promise<Harness> {
  const t = await startTestApp();
  if (t.config.storage.kind !== 'local') throw new Error('the test app should run on local storage');
  const notADirectory = path.join(t.dataDir, 'a-file');
  writeFileSync(notADirectory, 'x');
  const { root } = t.config.storage;
  return {
    // the app's own root and signer, with URLs at the address the test app really listens on
    storage: new LocalDiskObjectStorage(root, t.baseUrl, t.app.get(UrlSigner)),
    misconfigured: new LocalDiskObjectStorage(path.join(notADirectory, 'storage'), t.baseUrl, new UrlSigner('s'.repeat(48))),
    misconfiguredReason: /not writable/,
    localFileIsCopy: false,
    plantInterruptedWrite: (key) => {
      const file = path.join(root, `${key}.Ab12Cd34.partial`);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, 'half');
    },
    folderExists: (prefix) => existsSync(path.join(root, prefix)),
    close: () => t.close(),
  };
}

/** In memory, swapped into the real app, whose FilesController serves its signed URLs over HTTP. */
async function inMemory(): Promise<Harness> {
  const storage = new InMemoryObjectStorage();
  const t = await startTestApp({}, { adapters: [swap(ObjectStorage, storage)] });
  storage.serveAt(t.baseUrl, t.app.get(UrlSigner));
  return {
    storage,
    misconfigured: new InMemoryObjectStorage(),
    misconfiguredReason: /serveAt was not called/,
    localFileIsCopy: true,
    close: () => t.close(),
  };
}

/** S3 against a real S3-compatible server on loopback. */
async function s3(): Promise<Harness> {
  const server = await startS3Server();
  const storage = new S3ObjectStorage(server.storageConfig());
  const misconfigured = new S3ObjectStorage(server.storageConfig('no-such-bucket'));
  return {
    storage,
    misconfigured,
    misconfiguredReason: /no-such-bucket does not exist/,
    localFileIsCopy: true,
    close: async () => {
      storage.onApplicationShutdown();
      misconfigured.onApplicationShutdown();
      await server.close();
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each([
  ['local disk', localDisk, { folders: true }],
  ['S3 (s3rver)', s3, { folders: false }],
  ['in memory', inMemory, { folders: false }],
])('ObjectStorage contract: %s', (_name, start, { folders }) => {
  let h: Harness;
  let storage: ObjectStorage;
  beforeAll(async () => {
    h = await start();
    storage = h.storage;
  });
  afterAll(() => h?.close());

  async function stored(bytes: Buffer, key = freshKey()): Promise<string> {
    await storage.put(key, streamOf(bytes));
    return key;
  }

  describe('put and read', () => {
    it('streams a multi-megabyte body in and reads it back byte-identical', async () => {
      const bytes = randomBytes(12 * 1024 * 1024 + 12345);
      const key = freshKey();
      const before = Date.now();
      expect(await storage.put(key, streamOf(bytes))).toEqual({ key, size: bytes.length });
      // when it was written: a download's Last-Modified and ETag
      const stat = await storage.stat(key);
      expect({ key: stat?.key, size: stat?.size }).toEqual({ key, size: bytes.length });
      expect(Math.abs((stat?.modifiedAt.getTime() ?? 0) - before)).toBeLessThan(120_000);
      expect((await readAll(await storage.openRead(key))).equals(bytes)).toBe(true);
    });

    it('stores a local file with putFile', async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'contract-'));
      const bytes = randomBytes(70000);
      writeFileSync(path.join(dir, 'in.bin'), bytes);
      const key = freshKey();
      try {
        expect(await storage.putFile(key, path.join(dir, 'in.bin'))).toEqual({ key, size: bytes.length });
        expect((await readAll(await storage.openRead(key))).equals(bytes)).toBe(true);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('replaces an existing object', async () => {
      const key = await stored(randomBytes(5000));
      const replacement = randomBytes(300);
      await storage.put(key, streamOf(replacement));
      expect((await readAll(await storage.openRead(key))).equals(replacement)).toBe(true);
    });

    it('reads inclusive byte ranges', async () => {
      const bytes = randomBytes(1000);
      const key = await stored(bytes);
      // (no `bytes=0-0`: s3rver answers it with the whole object, which S3 itself does not)
      for (const range of [{ start: 0, end: 1 }, { start: 10, end: 19 }, { start: 999, end: 999 }, { start: 0, end: 999 }]) {
        const part = await readAll(await storage.openRead(key, range));
        expect(part.equals(bytes.subarray(range.start, range.end + 1))).toBe(true);
      }
    });

    it('answers null for stat of a missing key, and ObjectNotFoundError for reading one', async () => {
      const key = freshKey();
      expect(await storage.stat(key)).toBeNull();
      await expect(storage.openRead(key)).rejects.toBeInstanceOf(ObjectNotFoundError);
      await expect(storage.withLocalFile(key, async () => 'used')).rejects.toBeInstanceOf(ObjectNotFoundError);
    });

    it('reads an object deleted after its stream was opened to the end (a download racing retention)', async () => {
      const bytes = randomBytes(256 * 1024);
      const key = await stored(bytes);
      const stream = await storage.openRead(key);
      await storage.delete(key);
      expect((await readAll(stream)).equals(bytes)).toBe(true);
      await expect(storage.openRead(key)).rejects.toBeInstanceOf(ObjectNotFoundError);
    });

    it('deletes idempotently', async () => {
      const key = await stored(randomBytes(100));
      await storage.delete(key);
      expect(await storage.stat(key)).toBeNull();
      await expect(storage.delete(key)).resolves.toBeUndefined();
      await expect(storage.delete(freshKey())).resolves.toBeUndefined();
    });
  });

  describe('a stream that fails mid-put', () => {
    it('leaves nothing behind at a new key', async () => {
      const key = freshKey();
      await expect(storage.put(key, failingAfter(randomBytes(6 * 1024 * 1024)))).rejects.toThrow('client went away');
      expect(await storage.stat(key)).toBeNull();
    });

    it('keeps the earlier object at an existing key', async () => {
      const earlier = randomBytes(2000);
      const key = await stored(earlier);
      await expect(storage.put(key, failingAfter(randomBytes(100000)))).rejects.toThrow('client went away');
      expect((await readAll(await storage.openRead(key))).equals(earlier)).toBe(true);
    });
  });

  describe('list', () => {
    const folder = () => `chunks/list_${randomBytes(4).toString('hex')}`;

    it('finds every object under a prefix, nested ones too, with its size and when it was written; none outside it, none deleted', async () => {
      const [mine, other] = [folder(), folder()];
      const started = Date.now();
      const keys = [await stored(randomBytes(10), `${mine}/0.webm`), await stored(randomBytes(2000), `${mine}/1.webm`), await stored(randomBytes(5), `${mine}/deep/2.webm`)];
      await stored(randomBytes(1), `${other}/0.webm`);
      const gone = await stored(randomBytes(1), `${mine}/3.webm`);
      await storage.delete(gone);
      const listed = [];
      for await (const object of storage.list(`${mine}/`)) listed.push(object);
      expect(listed.map(({ key, size }) => ({ key, size })).sort((a, b) => a.key.localeCompare(b.key))).toEqual([
        { key: keys[0], size: 10 },
        { key: keys[1], size: 2000 },
        { key: keys[2], size: 5 },
      ]);
      // S3 keeps times to the second
      for (const { modifiedAt } of listed) expect(Math.abs(modifiedAt.getTime() - started)).toBeLessThan(60_000);
    });

    it('finds nothing under a prefix that holds no object', async () => {
      const listed = [];
      for await (const object of storage.list(`${folder()}/`)) listed.push(object);
      expect(listed).toEqual([]);
    });

    it('never shows what a write cut short left; removeInterruptedWrites removes it, and only it', async () => {
      const mine = folder();
      const whole = await stored(randomBytes(100), `${mine}/0.webm`);
      h.plantInterruptedWrite?.(`${mine}/1.webm`);
      await expect(storage.put(`${mine}/2.webm`, failingAfter(randomBytes(100000)))).rejects.toThrow('client went away');
      const listed = [];
      for await (const object of storage.list(`${mine}/`)) listed.push(object.key);
      expect(listed).toEqual([whole]);
      expect(await storage.removeInterruptedWrites(`${mine}/`, new Date(Date.now() - 3600_000))).toBe(0);
      expect(await storage.removeInterruptedWrites(`${folder()}/`, new Date(Date.now() + 60_000))).toBe(0);
      expect(await storage.removeInterruptedWrites(`${mine}/`, new Date(Date.now() + 60_000))).toBe(h.plantInterruptedWrite ? 1 : 0);
      expect(await storage.stat(whole)).toMatchObject({ key: whole, size: 100 });
    });
  });

  // only an adapter with folders has them to check: elsewhere these assertions passed for nothing
  if (folders) describe('folders (local disk)', () => {
    const folder = () => `chunks/folders_${randomBytes(4).toString('hex')}`;
    const folderExists = (prefix: string): boolean => {
      if (!h.folderExists) throw new Error('this harness cannot look at folders');
      return h.folderExists(prefix);
    };

    it("deleting a folder's last object removes the folders it leaves empty, up to the top-level one", async () => {
      const mine = folder();
      const [first, second] = [await stored(randomBytes(10), `${mine}/a/0.webm`), await stored(randomBytes(10), `${mine}/a/1.webm`)];
      await storage.delete(first);
      expect(folderExists(`${mine}/a`)).toBe(true);
      await storage.delete(second);
      expect(folderExists(`${mine}/a`)).toBe(false);
      expect(folderExists(mine)).toBe(false);
      expect(folderExists('chunks')).toBe(true);
    });

    it('removeInterruptedWrites also removes the empty folders under its prefix that are older than its cutoff', async () => {
      const mine = folder();
      const kept = await stored(randomBytes(10), `${mine}/kept/0.webm`);
      h.plantInterruptedWrite?.(`${mine}/cut/0.webm`);
      expect(folderExists(`${mine}/cut`)).toBe(true);
      expect(await storage.removeInterruptedWrites(`${mine}/`, new Date(Date.now() + 60_000))).toBe(1);
      expect(folderExists(`${mine}/cut`)).toBe(false);
      expect(folderExists(`${mine}/kept`)).toBe(true);
      expect(await storage.stat(kept)).toMatchObject({ key: kept, size: 10 });
    });
  });

  describe('withLocalFile', () => {
    it('gives a readable path holding the bytes while `use` runs', async () => {
      const bytes = randomBytes(200000);
      const key = await stored(bytes, freshKey('.mp4'));
      let seen = '';
      const result = await storage.withLocalFile(key, async (local) => {
        seen = local;
        expect((await fs.readFile(local)).equals(bytes)).toBe(true);
        return 'result';
      });
      expect(result).toBe('result');
      expect(path.extname(seen)).toBe('.mp4');
      expect(existsSync(seen)).toBe(!h.localFileIsCopy);
    });

    it('cleans a copy up when `use` throws', async () => {
      const key = await stored(randomBytes(1000));
      let seen = '';
      await expect(
        storage.withLocalFile(key, async (local) => {
          seen = local;
          throw new Error('use failed');
        }),
      ).rejects.toThrow('use failed');
      expect(existsSync(seen)).toBe(!h.localFileIsCopy);
      expect(await storage.stat(key)).not.toBeNull();
    });
  });

  describe('unsafe keys', () => {
    it.each(['../x', 'outputs/../../x', '/etc/passwd', 'outputs/./x', 'a b', ''])('refuses %j everywhere', async (key) => {
      await expect(storage.put(key, streamOf(Buffer.from('x')))).rejects.toThrow(/Unsafe storage key/);
      await expect(storage.stat(key)).rejects.toThrow(/Unsafe storage key/);
      await expect(storage.openRead(key)).rejects.toThrow(/Unsafe storage key/);
      await expect(storage.delete(key)).rejects.toThrow(/Unsafe storage key/);
      await expect(storage.withLocalFile(key, async () => undefined)).rejects.toThrow(/Unsafe storage key/);
      await expect(storage.signedDownloadUrl(key, 60)).rejects.toThrow(/Unsafe storage key/);
      await expect(storage.signedUploadUrl(key, 60)).rejects.toThrow(/Unsafe storage key/);
    });
  });

  describe('signed download URLs', () => {
    it('fetch the bytes without credentials, as an attachment of the download name', async () => {
      const bytes = randomBytes(300000);
      const key = await stored(bytes, freshKey('.webm'));
      const res = await fetch(await storage.signedDownloadUrl(key, 600, 'job_x.webm'));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('video/webm');
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="job_x.webm"');
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    });

    it('are refused when tampered with: signature, key, expiry or download name', async () => {
      const key = await stored(randomBytes(100));
      const other = await stored(randomBytes(100));
      expect(other.length).toBe(key.length);
      const url = await storage.signedDownloadUrl(key, 600, 'a.bin');
      const tampered = [withFlippedSignature(url), url.replace(key, other), withLaterExpiry(url), url.replace('a.bin', 'b.bin')];
      for (const variant of tampered) {
        expect(variant).not.toBe(url);
        expect((await fetch(variant)).status).toBe(403);
      }
    });

    it('are the same URL when asked for again soon, living 90% to 110% of their lifetime (a page showing the output downloaded it again at each poll)', async () => {
      const key = await stored(randomBytes(100));
      const before = Math.floor(Date.now() / 1000);
      const urls: string[] = [];
      for (let ask = 0; ask < 3; ask += 1) {
        if (ask > 0) await sleep(1100); // signed to the second, each would differ
        urls.push(await storage.signedDownloadUrl(key, 3600, 'a.bin'));
      }
      const [first, second, third] = urls;
      expect(first === second || second === third).toBe(true); // one of the two waits may cross a step
      const expires = Number(new URL(first).searchParams.get('expires') ?? NaN) || before + Number(new URL(first).searchParams.get('X-Amz-Expires'));
      expect(expires).toBeGreaterThanOrEqual(before + 3240);
      expect(expires).toBeLessThanOrEqual(before + 3961);
    });

    it('do not authorize an upload', async () => {
      const bytes = randomBytes(100);
      const key = await stored(bytes);
      const res = await fetch(await storage.signedDownloadUrl(key, 600), { method: 'PUT', body: randomBytes(100) });
      expect(res.status).toBe(403);
      expect((await readAll(await storage.openRead(key))).equals(bytes)).toBe(true);
    });
  });

  describe('signed upload URLs', () => {
    it('store the body of a PUT without credentials', async () => {
      const bytes = randomBytes(3 * 1024 * 1024 + 5);
      const key = freshKey('.webm');
      const res = await fetch(await storage.signedUploadUrl(key, 600), { method: 'PUT', body: bytes });
      expect(res.status).toBe(200);
      expect(await storage.stat(key)).toMatchObject({ key, size: bytes.length });
      expect((await readAll(await storage.openRead(key))).equals(bytes)).toBe(true);
    });

    it('are refused when tampered with, storing nothing', async () => {
      const key = freshKey();
      const url = await storage.signedUploadUrl(key, 600);
      for (const variant of [withFlippedSignature(url), withLaterExpiry(url), url.replace(key, freshKey())]) {
        expect((await fetch(variant, { method: 'PUT', body: randomBytes(100) })).status).toBe(403);
      }
      expect(await storage.stat(key)).toBeNull();
    });

    it('do not authorize a download', async () => {
      const key = await stored(randomBytes(100));
      expect((await fetch(await storage.signedUploadUrl(key, 600))).status).toBe(403);
    });
  });

  it('refuses expired download and upload URLs', async () => {
    const key = await stored(randomBytes(100));
    const download = await storage.signedDownloadUrl(key, 1);
    const upload = await storage.signedUploadUrl(freshKey(), 1);
    await sleep(2200);
    expect((await fetch(download)).status).toBe(403);
    expect((await fetch(upload, { method: 'PUT', body: randomBytes(10) })).status).toBe(403);
  });

  it("check() is 'ok', and a misconfigured instance says why", async () => {
    expect(await storage.check()).toBe('ok');
    expect(await h.misconfigured.check()).toMatch(h.misconfiguredReason);
  });
});
