import { mkdtempSync, promises as fs, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { LocalDiskObjectStorage } from '../../../src/modules/storage/adapters/local/local-disk.object-storage';
import { UrlSigner } from '../../../src/modules/storage/application/url-signer';
import { ObjectNotFoundError } from '../../../src/modules/storage/ports/object-storage';

/** A file that is missing is "not found" (a download's 410 gone); a store that cannot be read is not. */
describe('LocalDiskObjectStorage: missing objects against failing reads', () => {
  let dir: string;
  const storeAt = (root: string) => new LocalDiskObjectStorage(root, 'http://127.0.0.1:1', new UrlSigner('s'.repeat(48)));

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'local-disk-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a missing object is not found: openRead rejects with ObjectNotFoundError, stat answers null', async () => {
    const store = storeAt(dir);
    await expect(store.openRead('outputs/job_missing.webm')).rejects.toBeInstanceOf(ObjectNotFoundError);
    await expect(store.stat('outputs/job_missing.webm')).resolves.toBeNull();
  });

  it("a store that cannot be read (its directory a file) fails with the file system's error, not as not found", async () => {
    writeFileSync(path.join(dir, 'outputs'), 'not a directory');
    const store = storeAt(dir);
    const read = store.openRead('outputs/job_a.webm');
    await expect(read).rejects.not.toBeInstanceOf(ObjectNotFoundError);
    await expect(read).rejects.toMatchObject({ code: 'ENOTDIR' });
    await expect(store.stat('outputs/job_a.webm')).rejects.toMatchObject({ code: 'ENOTDIR' });
  });

  it('putFile replaces an object whole: a download already reading the old one reads it to its end (copied onto its name, it read the new bytes)', async () => {
    const store = storeAt(dir);
    const [older, newer] = [Buffer.alloc(200_000, 1), Buffer.alloc(200_000, 2)];
    writeFileSync(path.join(dir, 'older.bin'), older);
    writeFileSync(path.join(dir, 'newer.bin'), newer);
    await store.putFile('outputs/job_a.webm', path.join(dir, 'older.bin'));
    const reading = await store.openRead('outputs/job_a.webm');
    await store.putFile('outputs/job_a.webm', path.join(dir, 'newer.bin'));
    const chunks: Buffer[] = [];
    for await (const chunk of reading) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(older)).toBe(true);
    expect(readdirSync(path.join(dir, 'outputs'))).toEqual(['job_a.webm']);
  });
  it("a write whose folder a delete of the folder's last object removes before its file is created still lands (the folder is made again)", async () => {
    const store = storeAt(dir);
    await store.putFile('chunks/job_a/0.webm', await bytesAt('zero.bin', 10));
    const open = fs.open.bind(fs);
    let raced = false;
    const opens = jest.spyOn(fs, 'open').mockImplementation(async (...args: Parameters<typeof fs.open>) => {
      if (!raced && String(args[0]).includes('1.webm')) {
        raced = true;
        await store.delete('chunks/job_a/0.webm');
      }
      return open(...args);
    });
    try {
      await store.putFile('chunks/job_a/1.webm', await bytesAt('one.bin', 20));
    } finally {
      opens.mockRestore();
    }
    expect(raced).toBe(true);
    expect(await store.stat('chunks/job_a/1.webm')).toMatchObject({ key: 'chunks/job_a/1.webm', size: 20 });
  });

  const bytesAt = async (name: string, size: number): Promise<string> => {
    writeFileSync(path.join(dir, name), Buffer.alloc(size, 7));
    return path.join(dir, name);
  };
});
