/**
 * Content sniffing from a file's first bytes: the first step of the input gate (input-gate.ts). A
 * file is one of the accepted video containers or image types by its bytes, whatever its name or the
 * Content-Type it came with; anything else (playlists, SVG, HTML, archives...) is refused before
 * ffmpeg or ffprobe ever see it.
 */
import { open } from 'node:fs/promises';

export type SupportedVideoType = 'video/mp4' | 'video/quicktime' | 'video/webm' | 'video/x-msvideo';
export const SUPPORTED_VIDEO_TYPES: readonly SupportedVideoType[] = ['video/mp4', 'video/quicktime', 'video/webm', 'video/x-msvideo'];

export type SupportedImageType = 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif';
export const SUPPORTED_IMAGE_TYPES: readonly SupportedImageType[] = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];

export type SupportedMediaType = SupportedVideoType | SupportedImageType;

/** how many leading bytes `sniffVideoType` wants to see */
export const SNIFF_BYTES = 64;

const QUICKTIME_BRANDS = ['qt  '];
/** top-level atoms that old QuickTime files may start with instead of `ftyp` */
const QUICKTIME_LEADING_ATOMS = ['moov', 'mdat', 'wide', 'free', 'skip', 'pnot'];

const latin1 = (head: Uint8Array, start: number, end: number): string => Buffer.from(head.buffer, head.byteOffset, head.byteLength).toString('latin1', start, end);

/** Pure: the container type of a file from its first bytes (at least 12; 64 to tell WebM from Matroska). */
export function sniffVideoType(head: Uint8Array): SupportedVideoType | undefined {
  const bytes = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  const ascii = (start: number, end: number) => latin1(head, start, end);

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

/** Pure: the image type of a file from its first bytes (at least 16). */
export function sniffImageType(head: Uint8Array): SupportedImageType | undefined {
  const ascii = (start: number, end: number) => latin1(head, start, end);
  if (head.length >= 16 && ascii(0, 8) === '\x89PNG\r\n\x1a\n' && ascii(12, 16) === 'IHDR') return 'image/png';
  if (head.length >= 4 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (head.length >= 16 && ascii(0, 4) === 'RIFF' && ascii(8, 15) === 'WEBPVP8') return 'image/webp';
  if (head.length >= 13 && (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a')) return 'image/gif';
  return undefined;
}

/** Pure: what refused bytes look like, for the error message (never their content). */
export function describeContent(head: Uint8Array): string {
  if (head.length === 0) return 'an empty file';
  const text = latin1(head, 0, Math.min(head.length, 512)).replace(/^\ufeff|^\xef\xbb\xbf/, '').trimStart().toLowerCase();
  if (text.startsWith('#extm3u')) return 'an HLS playlist';
  if (text.startsWith('ffconcat') || text.startsWith('file ')) return 'a concat script';
  if (text.startsWith('<svg') || (text.startsWith('<?xml') && text.includes('<svg'))) return 'an SVG image';
  if (text.startsWith('<!doctype html') || text.startsWith('<html')) return 'an HTML page';
  if (text.startsWith('<?xml') || text.startsWith('<mpd')) return 'an XML document';
  if (latin1(head, 0, 4) === 'PK\x03\x04') return 'a ZIP archive';
  const type = sniffVideoType(head) ?? sniffImageType(head);
  return type ? TYPE_LABELS[type] : 'bytes of no accepted type';
}

/** How messages name each accepted type. */
export const TYPE_LABELS: Readonly<Record<SupportedMediaType, string>> = {
  'video/mp4': 'an MP4 video',
  'video/quicktime': 'a QuickTime video',
  'video/webm': 'a WebM video',
  'video/x-msvideo': 'an AVI video',
  'image/png': 'a PNG image',
  'image/jpeg': 'a JPEG image',
  'image/webp': 'a WebP image',
  'image/gif': 'a GIF image',
};

/** The first `bytes` bytes of a file (fewer when it is shorter). */
export async function readHead(path: string, bytes: number): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const head = Buffer.alloc(bytes);
    const { bytesRead } = await file.read(head, 0, bytes, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

export async function detectVideoType(path: string): Promise<SupportedVideoType | undefined> {
  return sniffVideoType(await readHead(path, SNIFF_BYTES));
}

/** True when the file's bytes are one of the accepted video containers (the service probes it next). */
export async function isSupportedVideo(path: string): Promise<boolean> {
  return (await detectVideoType(path)) !== undefined;
}
