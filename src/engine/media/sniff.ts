/**
 * Cheap container sniffing from a file's first bytes, for the upload path: it confirms that the
 * bytes are one of the accepted video containers before anything is stored or probed.
 */
import { open } from 'node:fs/promises';

export type SupportedVideoType = 'video/mp4' | 'video/quicktime' | 'video/webm' | 'video/x-msvideo';
export const SUPPORTED_VIDEO_TYPES: readonly SupportedVideoType[] = ['video/mp4', 'video/quicktime', 'video/webm', 'video/x-msvideo'];

/** how many leading bytes `sniffVideoType` wants to see */
export const SNIFF_BYTES = 64;

const QUICKTIME_BRANDS = ['qt  '];
/** top-level atoms that old QuickTime files may start with instead of `ftyp` */
const QUICKTIME_LEADING_ATOMS = ['moov', 'mdat', 'wide', 'free', 'skip', 'pnot'];

/** Pure: the container type of a file from its first bytes (at least 12; 64 to tell WebM from Matroska). */
export function sniffVideoType(head: Uint8Array): SupportedVideoType | undefined {
  const bytes = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  const ascii = (start: number, end: number) => bytes.toString('latin1', start, end);

  if (bytes.length >= 12 && ascii(4, 8) === 'ftyp') {
    return QUICKTIME_BRANDS.includes(ascii(8, 12)) ? 'video/quicktime' : 'video/mp4';
  }
  if (bytes.length >= 8 && QUICKTIME_LEADING_ATOMS.includes(ascii(4, 8))) return 'video/quicktime';
  if (bytes.length >= 4 && bytes.readUInt32BE(0) === 0x1a45dfa3) {
    // EBML header: the DocType element names the flavour; plain Matroska is not an accepted type.
    return ascii(0, bytes.length).includes('webm') ? 'video/webm' : undefined;
  }
  if (bytes.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'AVI ') return 'video/x-msvideo';
  return undefined;
}

export async function detectVideoType(path: string): Promise<SupportedVideoType | undefined> {
  const file = await open(path, 'r');
  try {
    const head = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await file.read(head, 0, SNIFF_BYTES, 0);
    return sniffVideoType(head.subarray(0, bytesRead));
  } finally {
    await file.close();
  }
}

/** True when the file's bytes are one of the accepted video containers (the service probes it next). */
export async function isSupportedVideo(path: string): Promise<boolean> {
  return (await detectVideoType(path)) !== undefined;
}
