import { createWriteStream } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { ZipFile } from 'yazl';

/**
 * Zips the PNG frames of a directory (sorted by name) into `zipPath`, streaming file by file: the
 * archive is never held in memory. PNG is already deflated, so entries are stored, not recompressed.
 */
export async function zipFrames(directory: string, zipPath: string): Promise<number> {
  const names = (await readdir(directory)).filter((name) => name.endsWith('.png')).sort();
  const zip = new ZipFile();
  const mtime = new Date();
  for (const name of names) zip.addFile(join(directory, name), name, { compress: false, mtime });
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(zipPath));
  return names.length;
}
