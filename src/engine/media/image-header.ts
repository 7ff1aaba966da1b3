/**
 * An image's dimensions from its header alone, without decoding anything: how the input gate knows
 * a decompression bomb (a small file declaring a huge picture) before any decoder allocates it.
 */
import { SupportedImageType } from './sniff';

export interface ImageSize {
  width: number;
  height: number;
}

/** how much of an image the gate reads to find its size (JPEG metadata segments come before it) */
export const IMAGE_HEAD_BYTES = 1024 * 1024;

/** Pure: the declared size, or undefined when the header is cut short or malformed. */
export function imageDimensions(type: SupportedImageType, head: Buffer): ImageSize | undefined {
  const size = readSize(type, head);
  return size && size.width > 0 && size.height > 0 ? size : undefined;
}

function readSize(type: SupportedImageType, head: Buffer): ImageSize | undefined {
  switch (type) {
    case 'image/png':
      return head.length >= 24 ? { width: head.readUInt32BE(16), height: head.readUInt32BE(20) } : undefined;
    case 'image/gif':
      return head.length >= 10 ? { width: head.readUInt16LE(6), height: head.readUInt16LE(8) } : undefined;
    case 'image/webp':
      return webpSize(head);
    case 'image/jpeg':
      return jpegSize(head);
  }
}

function webpSize(head: Buffer): ImageSize | undefined {
  if (head.length < 30) return undefined;
  switch (head.toString('latin1', 12, 16)) {
    case 'VP8 ': // lossy: frame tag (3 bytes), start code 9d 01 2a, then 14-bit sizes
      if (head[23] !== 0x9d || head[24] !== 0x01 || head[25] !== 0x2a) return undefined;
      return { width: head.readUInt16LE(26) & 0x3fff, height: head.readUInt16LE(28) & 0x3fff };
    case 'VP8L': {
      // lossless: signature 0x2f, then width-1 and height-1 in 14 bits each
      if (head[20] !== 0x2f) return undefined;
      const bits = head.readUInt32LE(21);
      return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
    }
    case 'VP8X': // extended: flags (4 bytes), then canvas width-1 and height-1 in 24 bits each
      return { width: head.readUIntLE(24, 3) + 1, height: head.readUIntLE(27, 3) + 1 };
    default:
      return undefined;
  }
}

/** Start-of-frame markers (SOF0..SOF15 except DHT, JPG and DAC) carry the picture's size. */
const JPEG_SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);
const JPEG_START_OF_SCAN = 0xda;

function jpegSize(head: Buffer): ImageSize | undefined {
  let at = 2;
  while (at + 4 <= head.length) {
    if (head[at] !== 0xff) return undefined;
    const marker = head[at + 1];
    if (marker === 0xff) {
      at += 1; // fill byte
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      at += 2; // markers without a length
      continue;
    }
    if (marker === JPEG_START_OF_SCAN) return undefined;
    const length = head.readUInt16BE(at + 2);
    if (JPEG_SOF.has(marker)) {
      return at + 9 <= head.length ? { height: head.readUInt16BE(at + 5), width: head.readUInt16BE(at + 7) } : undefined;
    }
    if (length < 2) return undefined;
    at += 2 + length;
  }
  return undefined;
}

const JPEG_APP1 = 0xe1;
const EXIF_ORIENTATION_TAG = 0x0112;

/**
 * Pure: a JPEG's EXIF orientation (2..8: the picture is stored turned or mirrored, as cameras and
 * phones write it, and viewers show it upright), or undefined where it is upright (1) or says none.
 */
export function jpegOrientation(head: Buffer): number | undefined {
  let at = 2;
  while (at + 4 <= head.length && head[at] === 0xff) {
    const marker = head[at + 1];
    if (marker === JPEG_START_OF_SCAN) return undefined;
    const length = head.readUInt16BE(at + 2);
    if (length < 2) return undefined;
    if (marker === JPEG_APP1 && head.toString('latin1', at + 4, at + 10) === 'Exif\0\0') return exifOrientation(head.subarray(at + 10, at + 2 + length));
    at += 2 + length;
  }
  return undefined;
}

/** the orientation entry of a TIFF header's first directory (EXIF's layout) */
function exifOrientation(tiff: Buffer): number | undefined {
  if (tiff.length < 8) return undefined;
  const order = tiff.toString('latin1', 0, 2);
  if (order !== 'II' && order !== 'MM') return undefined;
  const u16 = (offset: number) => (order === 'II' ? tiff.readUInt16LE(offset) : tiff.readUInt16BE(offset));
  const u32 = (offset: number) => (order === 'II' ? tiff.readUInt32LE(offset) : tiff.readUInt32BE(offset));
  const directory = u32(4);
  if (directory + 2 > tiff.length) return undefined;
  const entries = u16(directory);
  for (let entry = 0; entry < entries; entry++) {
    const offset = directory + 2 + entry * 12;
    if (offset + 12 > tiff.length) return undefined;
    if (u16(offset) !== EXIF_ORIENTATION_TAG) continue;
    const orientation = u16(offset + 8);
    return orientation >= 2 && orientation <= 8 ? orientation : undefined;
  }
  return undefined;
}
