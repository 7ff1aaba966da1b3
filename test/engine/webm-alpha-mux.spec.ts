/**
 * The WebM alpha muxer: two VP9 streams made by the real ffmpeg, joined, then read back by ffmpeg's
 * libvpx decoder (alpha exact to the encoder's loss), seeked into, walked element by element (a
 * finished file: sizes, duration, cues), and refused when they do not pair.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeSize, intElement, uintElement } from '../../src/engine/output/ebml';
import { IvfFormatError, IvfReader, isVp9KeyFrame, parseIvfHeader } from '../../src/engine/output/ivf-reader';
import { muxWebmWithAlpha } from '../../src/engine/output/webm-alpha-mux';
import { ffmpeg, probeStreams } from './support/media-tools';
import { temporaryDirectory } from '../support/temporary-directory';

const WIDTH = 96;
const HEIGHT = 64;
const FRAMES = 20;
const VP9 = ['-c:v', 'libvpx-vp9', '-pix_fmt', 'yuv420p', '-deadline', 'realtime', '-cpu-used', '8', '-crf', '20', '-b:v', '0'];

/** A moving bright square on black: as colour, and (its luma) as alpha. */
const SQUARE = `color=c=black:s=${WIDTH}x${HEIGHT}:r=10:d=${FRAMES / 10},format=yuv420p,geq=lum='255*between(X,4+2*N,35+2*N)*between(Y,8,39)':cb=128:cr=128`;

const dir = temporaryDirectory('webm-alpha-');

async function encodeIvf(name: string, filter: string, keyInterval: number, frames = FRAMES): Promise<string> {
  const path = join(dir(), name);
  await ffmpeg(['-f', 'lavfi', '-i', filter, '-frames:v', String(frames), ...VP9, '-g', String(keyInterval), '-keyint_min', String(keyInterval), '-f', 'ivf', '-y', path]);
  return path;
}

async function decodedAlpha(path: string, seekSeconds?: number): Promise<Buffer> {
  return ffmpeg(['-c:v', 'libvpx-vp9', ...(seekSeconds === undefined ? [] : ['-ss', String(seekSeconds)]), '-i', path, '-vf', 'alphaextract', '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1']);
}

describe('EBML primitives', () => {
  it('sizes take the fewest bytes, never the all-ones value of a length', () => {
    expect(encodeSize(0)).toEqual(Buffer.from([0x80]));
    expect(encodeSize(126)).toEqual(Buffer.from([0xfe]));
    expect(encodeSize(127)).toEqual(Buffer.from([0x40, 0x7f])); // 0xff would mean "unknown size"
    expect(encodeSize(16382)).toEqual(Buffer.from([0x7f, 0xfe]));
    expect(encodeSize(16383)).toEqual(Buffer.from([0x20, 0x3f, 0xff]));
    expect(() => encodeSize(-1)).toThrow(RangeError);
  });

  it('integers are big-endian in the fewest bytes; signed ones keep their sign', () => {
    expect(uintElement(0xd7, 1)).toEqual(Buffer.from([0xd7, 0x81, 0x01]));
    expect(uintElement(0x2ad7b1, 1_000_000)).toEqual(Buffer.from([0x2a, 0xd7, 0xb1, 0x83, 0x0f, 0x42, 0x40]));
    expect(intElement(0xfb, -40)).toEqual(Buffer.from([0xfb, 0x81, 0xd8]));
    expect(intElement(0xfb, -200)).toEqual(Buffer.from([0xfb, 0x82, 0xff, 0x38]));
  });
});

describe('IVF reading', () => {
  it('reads the header, every frame, and which frames are key frames', async () => {
    const path = await encodeIvf('keys.ivf', SQUARE, 5);
    const reader = await IvfReader.open(path);
    expect(reader.header).toMatchObject({ fourcc: 'VP90', width: WIDTH, height: HEIGHT });
    const keys: boolean[] = [];
    for (let frame = await reader.next(); frame; frame = await reader.next()) keys.push(isVp9KeyFrame(frame.data));
    await reader.close();
    expect(keys).toHaveLength(FRAMES);
    expect(keys.flatMap((key, index) => (key ? [index] : []))).toEqual([0, 5, 10, 15]);
  });

  it('refuses what is not IVF and reports a truncated frame', async () => {
    expect(() => parseIvfHeader(Buffer.from('RIFF....WEBPVP8 '.padEnd(32, '\0')))).toThrow(IvfFormatError);
    const whole = await readFile(await encodeIvf('whole.ivf', SQUARE, 5));
    const truncatedPath = join(dir(), 'truncated.ivf');
    await writeFile(truncatedPath, whole.subarray(0, whole.length - 10));
    const reader = await IvfReader.open(truncatedPath);
    await expect((async () => {
      while (await reader.next());
    })()).rejects.toThrow(/truncated IVF frame/);
    await reader.close();
  });
});

/** an EBML variable-length integer at `at`: its value and length; `id` keeps the marker bits */
function readVint(bytes: Buffer, at: number, id = false): { value: number; length: number } {
  const length = Math.clz32(bytes[at]!) - 23;
  let value = id ? bytes[at]! : bytes[at]! & (0xff >> length);
  for (let i = 1; i < length; i++) value = value * 256 + bytes[at + i]!;
  return { value, length };
}

/** the elements from `from` to `end`, in order: id, where the element starts, where its payload starts, its size */
function elementsIn(bytes: Buffer, from: number, end: number): { id: number; start: number; at: number; size: number }[] {
  const found: { id: number; start: number; at: number; size: number }[] = [];
  for (let start = from; start < end; ) {
    const id = readVint(bytes, start, true);
    const size = readVint(bytes, start + id.length);
    found.push({ id: id.value, start, at: start + id.length + size.length, size: size.value });
    start += id.length + size.length + size.value;
  }
  return found;
}

/** the payload of an unsigned integer element */
const uintIn = (bytes: Buffer, e: { at: number; size: number }) => Number(Buffer.concat([Buffer.alloc(8 - e.size), bytes.subarray(e.at, e.at + e.size)]).readBigUInt64BE());

describe('muxWebmWithAlpha', () => {
  it('joins colour and alpha into one VP9 track that ffmpeg decodes with its alpha, and that seeks', async () => {
    const color = await encodeIvf('color.ivf', `testsrc=s=${WIDTH}x${HEIGHT}:r=10`, 10);
    const alpha = await encodeIvf('alpha.ivf', SQUARE, 10);
    const output = join(dir(), 'joined.webm');
    expect(await muxWebmWithAlpha(color, alpha, output)).toEqual({ frames: FRAMES, keyFrames: 2 });

    const probe = await probeStreams(output);
    expect(probe.streams).toHaveLength(1);
    expect(probe.streams[0]).toMatchObject({ codec_name: 'vp9', width: WIDTH, height: HEIGHT, nb_read_frames: String(FRAMES) });
    expect(probe.streams[0].tags?.alpha_mode).toBe('1');

    const decoded = await decodedAlpha(output);
    const expected = await ffmpeg(['-f', 'lavfi', '-i', SQUARE, '-frames:v', String(FRAMES), '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1']);
    expect(decoded.length).toBe(expected.length);
    let error = 0;
    for (let i = 0; i < expected.length; i++) error += Math.abs(decoded[i]! - expected[i]!);
    expect(error / expected.length).toBeLessThan(2); // crf 20 loss, on 0..255

    // a seek lands on the second key frame (t = 1 s) and still finds the square in the alpha
    const afterSeek = await decodedAlpha(output, 1);
    expect(afterSeek.length).toBe((FRAMES - 10) * WIDTH * HEIGHT);
    const squareX = 4 + 2 * 10 + 16;
    expect(afterSeek[24 * WIDTH + squareX]).toBeGreaterThan(230);
    expect(afterSeek[24 * WIDTH + WIDTH - 2]).toBeLessThan(25);
  });

  it('writes a finished file: the Segment sized, the duration, and cues at each key frame that the SeekHead points to', async () => {
    const color = await encodeIvf('color-cues.ivf', `testsrc=s=${WIDTH}x${HEIGHT}:r=10`, 10);
    const alpha = await encodeIvf('alpha-cues.ivf', SQUARE, 10);
    const output = join(dir(), 'finished.webm');
    await muxWebmWithAlpha(color, alpha, output);
    const bytes = await readFile(output);

    const [header, segment] = elementsIn(bytes, 0, bytes.length);
    expect([header!.id, segment!.id]).toEqual([0x1a45dfa3, 0x18538067]);
    expect(segment!.at + segment!.size).toBe(bytes.length);
    const children = elementsIn(bytes, segment!.at, bytes.length);
    expect(children.map((e) => e.id)).toEqual([0x114d9b74, 0x1549a966, 0x1654ae6b, 0x1f43b675, 0x1f43b675, 0x1c53bb6b]);

    // the SeekHead's entries: Info, Tracks and Cues, each where it is
    const inside = (e: { at: number; size: number }) => elementsIn(bytes, e.at, e.at + e.size);
    const seeks = inside(children[0]!).map((seek) => inside(seek));
    expect(seeks.map(([id, position]) => [uintIn(bytes, id!), uintIn(bytes, position!)])).toEqual(
      [children[1]!, children[2]!, children[5]!].map((e) => [e.id, e.start - segment!.at]),
    );

    // one cue per key frame (0 and 1 s), at its cluster
    const cues = inside(children[5]!).map((point) => {
      const [time, positions] = inside(point);
      const [track, cluster] = inside(positions!);
      return [uintIn(bytes, time!), uintIn(bytes, track!), uintIn(bytes, cluster!)];
    });
    expect(cues).toEqual([
      [0, 1, children[3]!.start - segment!.at],
      [1000, 1, children[4]!.start - segment!.at],
    ]);

    const probe = await probeStreams(output);
    expect(Number(probe.format.duration)).toBeCloseTo(FRAMES / 10, 2);
  });

  it('marks a key frame only where both streams have one', async () => {
    const color = await encodeIvf('color-5.ivf', `testsrc=s=${WIDTH}x${HEIGHT}:r=10`, 5);
    const alpha = await encodeIvf('alpha-10.ivf', SQUARE, 10);
    expect(await muxWebmWithAlpha(color, alpha, join(dir(), 'mixed.webm'))).toEqual({ frames: FRAMES, keyFrames: 2 });
  });

  it('refuses streams that do not pair frame for frame or differ in size', async () => {
    const color = await encodeIvf('color-short.ivf', `testsrc=s=${WIDTH}x${HEIGHT}:r=10`, 10, FRAMES - 1);
    const alpha = await encodeIvf('alpha-full.ivf', SQUARE, 10);
    await expect(muxWebmWithAlpha(color, alpha, join(dir(), 'short.webm'))).rejects.toThrow(/differ in length/);
    const small = await encodeIvf('alpha-small.ivf', `color=c=white:s=64x64:r=10`, 10);
    await expect(muxWebmWithAlpha(alpha, small, join(dir(), 'sizes.webm'))).rejects.toThrow(/differ in size/);
  });
});
