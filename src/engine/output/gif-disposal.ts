/**
 * Sets the disposal method of every frame of a GIF. This ffmpeg's GIF muxer writes disposal 1 (do
 * not dispose), so in a transparent animation each frame is drawn over the previous ones and a
 * moving subject leaves trails; disposal 2 (restore to background) clears the frame first.
 *
 * The block walker is a generator that asks for bytes (`read`) or to pass over them (`skip`) and
 * reports each Graphic Control Extension it meets; drivers feed it from a buffer or from a file
 * through a small window, so a GIF of any length is patched in place with bounded memory.
 */
import { open } from 'node:fs/promises';

export const DISPOSAL_RESTORE_TO_BACKGROUND = 2;

type WalkerStep =
  | { kind: 'read'; length: number }
  | { kind: 'skip'; length: number }
  /** the packed field of a Graphic Control Extension: disposal method in bits 2..4 */
  | { kind: 'control'; offset: number; packed: number };

const EXTENSION_INTRODUCER = 0x21;
const IMAGE_SEPARATOR = 0x2c;
const TRAILER = 0x3b;
const GRAPHIC_CONTROL_LABEL = 0xf9;

export class GifFormatError extends Error {}

/** Walks the GIF block structure; the driver answers each `read` with exactly that many bytes. */
function* walkGif(): Generator<WalkerStep, void, Uint8Array | undefined> {
  let position = 0;
  function* read(length: number): Generator<WalkerStep, Uint8Array, Uint8Array | undefined> {
    const bytes = yield { kind: 'read', length };
    if (!bytes || bytes.length !== length) throw new GifFormatError(`truncated GIF at byte ${position}`);
    position += length;
    return bytes;
  }
  function* skip(length: number): Generator<WalkerStep, void, Uint8Array | undefined> {
    if (length > 0) yield { kind: 'skip', length };
    position += length;
  }
  function* skipSubBlocks(): Generator<WalkerStep, void, Uint8Array | undefined> {
    for (;;) {
      const [size] = yield* read(1);
      if (size === 0) return;
      yield* skip(size);
    }
  }
  const colorTableBytes = (packed: number) => (packed & 0x80 ? 3 * 2 ** ((packed & 0x07) + 1) : 0);

  const header = yield* read(13); // signature + version + logical screen descriptor
  const signature = String.fromCharCode(...header.subarray(0, 6));
  if (signature !== 'GIF89a' && signature !== 'GIF87a') throw new GifFormatError('not a GIF');
  yield* skip(colorTableBytes(header[10]));

  for (;;) {
    const [introducer] = yield* read(1);
    if (introducer === TRAILER) return;
    if (introducer === IMAGE_SEPARATOR) {
      const descriptor = yield* read(9);
      yield* skip(colorTableBytes(descriptor[8]));
      yield* skip(1); // LZW minimum code size
      yield* skipSubBlocks();
    } else if (introducer === EXTENSION_INTRODUCER) {
      const [label] = yield* read(1);
      if (label === GRAPHIC_CONTROL_LABEL) {
        const [size] = yield* read(1);
        if (size < 1) throw new GifFormatError(`empty graphic control extension at byte ${position}`);
        const offset = position;
        const [packed] = yield* read(1);
        yield { kind: 'control', offset, packed };
        yield* skip(size - 1);
      }
      yield* skipSubBlocks();
    } else {
      throw new GifFormatError(`unexpected block 0x${introducer.toString(16)} at byte ${position - 1}`);
    }
  }
}

export function withDisposal(packed: number, disposal: number): number {
  return (packed & ~0x1c) | ((disposal & 0x07) << 2);
}

/** Pure, in place: sets every frame's disposal method; returns how many frames it changed. */
export function setGifDisposal(bytes: Uint8Array, disposal = DISPOSAL_RESTORE_TO_BACKGROUND): number {
  let position = 0;
  let changed = 0;
  const walker = walkGif();
  let step = walker.next();
  while (!step.done) {
    const request = step.value;
    if (request.kind === 'read') {
      const chunk = bytes.subarray(position, position + request.length);
      position += chunk.length;
      step = walker.next(chunk);
    } else {
      if (request.kind === 'skip') position += request.length;
      else if (withDisposal(request.packed, disposal) !== request.packed) {
        bytes[request.offset] = withDisposal(request.packed, disposal);
        changed += 1;
      }
      step = walker.next(undefined);
    }
  }
  return changed;
}

const WINDOW_BYTES = 64 * 1024;

/** The same on a file, patched in place through a 64 KiB read window. */
export async function setGifFileDisposal(path: string, disposal = DISPOSAL_RESTORE_TO_BACKGROUND): Promise<number> {
  const file = await open(path, 'r+');
  try {
    const window = Buffer.alloc(WINDOW_BYTES);
    let windowStart = 0;
    let windowLength = 0;
    let position = 0;
    const readAt = async (length: number): Promise<Uint8Array> => {
      if (position < windowStart || position + length > windowStart + windowLength) {
        windowStart = position;
        windowLength = (await file.read(window, 0, WINDOW_BYTES, position)).bytesRead;
      }
      const start = position - windowStart;
      const chunk = window.subarray(start, Math.min(start + length, windowLength));
      position += chunk.length;
      return Buffer.from(chunk);
    };

    const patches: { offset: number; value: number }[] = [];
    const walker = walkGif();
    let step = walker.next();
    while (!step.done) {
      const request = step.value;
      if (request.kind === 'read') {
        step = walker.next(await readAt(request.length));
        continue;
      }
      if (request.kind === 'skip') position += request.length;
      else if (withDisposal(request.packed, disposal) !== request.packed) {
        patches.push({ offset: request.offset, value: withDisposal(request.packed, disposal) });
      }
      step = walker.next(undefined);
    }
    for (const { offset, value } of patches) await file.write(Buffer.of(value), 0, 1, offset);
    return patches.length;
  } finally {
    await file.close();
  }
}
