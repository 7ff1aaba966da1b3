/**
 * Reads the frames of an IVF file (the raw VP8/VP9 container ffmpeg writes with `-f ivf`) one at a
 * time from disk: a 32-byte file header, then per frame a 12-byte header (size, pts) and the data.
 */
import { FileHandle, open } from 'node:fs/promises';

export interface IvfHeader {
  fourcc: string;
  width: number;
  height: number;
  /** seconds per pts unit = timebaseNumerator / timebaseDenominator */
  timebaseNumerator: number;
  timebaseDenominator: number;
}

export interface IvfFrame {
  pts: number;
  data: Buffer;
}

export class IvfFormatError extends Error {}

const FILE_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 12;

export function parseIvfHeader(bytes: Buffer): IvfHeader {
  if (bytes.length < FILE_HEADER_BYTES || bytes.toString('latin1', 0, 4) !== 'DKIF') throw new IvfFormatError('not an IVF file');
  const headerSize = bytes.readUInt16LE(6);
  if (headerSize !== FILE_HEADER_BYTES) throw new IvfFormatError(`unexpected IVF header size ${headerSize}`);
  return {
    fourcc: bytes.toString('latin1', 8, 12),
    width: bytes.readUInt16LE(12),
    height: bytes.readUInt16LE(14),
    timebaseDenominator: bytes.readUInt32LE(16),
    timebaseNumerator: bytes.readUInt32LE(20),
  };
}

export class IvfReader {
  private position = FILE_HEADER_BYTES;

  private constructor(
    private readonly file: FileHandle,
    readonly header: IvfHeader,
  ) {}

  static async open(path: string): Promise<IvfReader> {
    const file = await open(path, 'r');
    try {
      const { buffer, bytesRead } = await file.read(Buffer.alloc(FILE_HEADER_BYTES), 0, FILE_HEADER_BYTES, 0);
      return new IvfReader(file, parseIvfHeader(buffer.subarray(0, bytesRead)));
    } catch (error) {
      await file.close();
      throw error;
    }
  }

  /** The next frame, or undefined at the end of the file. */
  async next(): Promise<IvfFrame | undefined> {
    const header = await this.readExactly(FRAME_HEADER_BYTES, true);
    if (!header) return undefined;
    const size = header.readUInt32LE(0);
    const pts = Number(header.readBigInt64LE(4));
    const data = await this.readExactly(size, false);
    return { pts, data: data! };
  }

  async close(): Promise<void> {
    await this.file.close();
  }

  private async readExactly(length: number, endAllowed: boolean): Promise<Buffer | undefined> {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await this.file.read(buffer, 0, length, this.position);
    if (bytesRead === 0 && endAllowed) return undefined;
    if (bytesRead !== length) throw new IvfFormatError(`truncated IVF frame at byte ${this.position}`);
    this.position += length;
    return buffer;
  }
}

/**
 * VP9 uncompressed header: frame_marker (2 bits), profile (2 bits, plus a reserved bit in profile
 * 3), show_existing_frame, frame_type (0 = key frame).
 */
export function isVp9KeyFrame(frame: Buffer): boolean {
  if (frame.length === 0) return false;
  const byte = frame[0]!;
  if (byte >> 6 !== 0b10) return false;
  const profile = ((byte >> 5) & 1) | (((byte >> 4) & 1) << 1);
  let bit = profile === 3 ? 2 : 3;
  const showExistingFrame = (byte >> bit) & 1;
  if (showExistingFrame) return false;
  bit -= 1;
  return ((byte >> bit) & 1) === 0;
}
