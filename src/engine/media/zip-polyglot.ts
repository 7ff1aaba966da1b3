/**
 * Polyglots: a file that is a valid JPEG (or video) and also a ZIP archive, because a ZIP is read
 * from its end. The gate refuses them: Backdrop never needs such a file, and whatever would later
 * unpack it (a download, a browser, another tool) should not receive it from us.
 */
import { open } from 'node:fs/promises';

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_DIRECTORY_ENTRY = 0x02014b50;
const EOCD_SIZE = 22;
/** the EOCD record ends a ZIP, followed only by a comment of at most 65535 bytes (unzip and Python's zipfile look no further back) */
export const ZIP_TAIL_BYTES = EOCD_SIZE + 0xffff;

/**
 * Pure: true when `tail` (the end of a file) ends with a ZIP archive: its end-of-central-directory
 * record (and comment) at the very end, or with bytes after it where the record's central
 * directory is in place just before it (unzip and Python's zipfile open such a file as well; a JPEG,
 * a ZIP and 16 zero bytes passed).
 */
export function tailIsZipArchive(tail: Buffer): boolean {
  for (let at = tail.length - EOCD_SIZE; at >= 0; at -= 1) {
    if (tail.readUInt32LE(at) !== END_OF_CENTRAL_DIRECTORY) continue;
    const end = at + EOCD_SIZE + tail.readUInt16LE(at + 20);
    if (end === tail.length || (end < tail.length && centralDirectoryBefore(tail, at))) return true;
  }
  return false;
}

/** whether the central directory the record at `at` sizes starts right before it, with an entry's signature */
function centralDirectoryBefore(tail: Buffer, at: number): boolean {
  const size = tail.readUInt32LE(at + 12);
  return size > 0 && at - size >= 0 && tail.readUInt32LE(at - size) === CENTRAL_DIRECTORY_ENTRY;
}

export async function endsWithZipArchive(path: string): Promise<boolean> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const length = Math.min(size, ZIP_TAIL_BYTES);
    const tail = Buffer.alloc(length);
    await file.read(tail, 0, length, size - length);
    return tailIsZipArchive(tail);
  } finally {
    await file.close();
  }
}
