/**
 * The few EBML (Matroska/WebM) building blocks the alpha muxer writes: an element is its ID bytes,
 * its payload size as a variable-length integer, and the payload.
 */

/** Element IDs keep their length marker bits, as the Matroska specification lists them. */
export const EBML_ID = {
  EBML: 0x1a45dfa3,
  EBMLVersion: 0x4286,
  EBMLReadVersion: 0x42f7,
  EBMLMaxIDLength: 0x42f2,
  EBMLMaxSizeLength: 0x42f3,
  DocType: 0x4282,
  DocTypeVersion: 0x4287,
  DocTypeReadVersion: 0x4285,
  Segment: 0x18538067,
  SeekHead: 0x114d9b74,
  Seek: 0x4dbb,
  SeekID: 0x53ab,
  SeekPosition: 0x53ac,
  Info: 0x1549a966,
  TimecodeScale: 0x2ad7b1,
  Duration: 0x4489,
  MuxingApp: 0x4d80,
  WritingApp: 0x5741,
  Tracks: 0x1654ae6b,
  TrackEntry: 0xae,
  TrackNumber: 0xd7,
  TrackUID: 0x73c5,
  TrackType: 0x83,
  FlagLacing: 0x9c,
  MaxBlockAdditionID: 0x55ee,
  CodecID: 0x86,
  DefaultDuration: 0x23e383,
  Video: 0xe0,
  PixelWidth: 0xb0,
  PixelHeight: 0xba,
  AlphaMode: 0x53c0,
  Cluster: 0x1f43b675,
  Timecode: 0xe7,
  BlockGroup: 0xa0,
  Block: 0xa1,
  ReferenceBlock: 0xfb,
  BlockAdditions: 0x75a1,
  BlockMore: 0xa6,
  BlockAddID: 0xee,
  BlockAdditional: 0xa5,
  Cues: 0x1c53bb6b,
  CuePoint: 0xbb,
  CueTime: 0xb3,
  CueTrackPositions: 0xb7,
  CueTrack: 0xf7,
  CueClusterPosition: 0xf1,
} as const;

export function idBytes(id: number): Buffer {
  const length = id > 0xffffff ? 4 : id > 0xffff ? 3 : id > 0xff ? 2 : 1;
  const bytes = Buffer.alloc(length);
  bytes.writeUIntBE(id, 0, length);
  return bytes;
}

/** Variable-length size: the shortest of 1..8 bytes whose all-ones value (reserved) it avoids. */
export function encodeSize(size: number): Buffer {
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`invalid EBML size ${size}`);
  for (let length = 1; length <= 8; length++) {
    if (size < 2 ** (7 * length) - 1) {
      const bytes = Buffer.alloc(length);
      let rest = size;
      for (let i = length - 1; i >= 0; i--) {
        bytes[i] = rest % 256;
        rest = Math.floor(rest / 256);
      }
      bytes[0] |= 0x80 >> (length - 1);
      return bytes;
    }
  }
  throw new RangeError(`EBML size ${size} too large`);
}

export function element(id: number, payload: Buffer | readonly Buffer[]): Buffer {
  const body = Buffer.isBuffer(payload) ? payload : Buffer.concat(payload);
  return Buffer.concat([idBytes(id), encodeSize(body.length), body]);
}

/** A size in the 8 bytes of the largest length, so that it can be written over once known. */
export function eightByteSize(size: number): Buffer {
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`invalid EBML size ${size}`);
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(BigInt(size));
  bytes[0] = 0x01;
  return bytes;
}

/** An unsigned integer in exactly 8 bytes (a value written over once known). */
export function eightByteUintElement(id: number, value: number): Buffer {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`invalid unsigned value ${value}`);
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(BigInt(value));
  return element(id, bytes);
}

/** A float element, as an 8-byte big-endian double. */
export function floatElement(id: number, value: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeDoubleBE(value);
  return element(id, bytes);
}

export function uintElement(id: number, value: number): Buffer {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`invalid unsigned value ${value}`);
  let length = 1;
  while (value >= 2 ** (8 * length)) length++;
  const bytes = Buffer.alloc(length);
  bytes.writeUIntBE(value, 0, length);
  return element(id, bytes);
}

export function intElement(id: number, value: number): Buffer {
  if (!Number.isSafeInteger(value) || Math.abs(value) >= 2 ** 47) throw new RangeError(`invalid signed value ${value}`);
  let length = 1;
  while (value < -(2 ** (8 * length - 1)) || value >= 2 ** (8 * length - 1)) length++;
  const bytes = Buffer.alloc(length);
  bytes.writeIntBE(value, 0, length);
  return element(id, bytes);
}

export function stringElement(id: number, value: string): Buffer {
  return element(id, Buffer.from(value, 'utf8'));
}
