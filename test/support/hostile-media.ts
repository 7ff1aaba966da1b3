/**
 * Hostile media, generated at test time (ffmpeg, sharp, bytes): files an attacker would hand the
 * service to make ffmpeg read local files, call out, or allocate without bound. Small and fast.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { constants, crc32, createDeflate, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { ffmpegPath } from '../../src/engine/media/binaries';

const run = promisify(execFile);

const u16 = (value: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(value);
  return b;
};
const u32 = (value: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(value);
  return b;
};
const u32be = (value: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(value);
  return b;
};

/** An HLS playlist whose one segment is `segment` (file:, http:, concat:, subfile: ...). */
export function hlsPlaylist(...segments: string[]): Buffer {
  const lines = ['#EXTM3U', '#EXT-X-VERSION:3', '#EXT-X-TARGETDURATION:1', '#EXT-X-MEDIA-SEQUENCE:0'];
  for (const segment of segments) lines.push('#EXTINF:1.0,', segment);
  lines.push('#EXT-X-ENDLIST', '');
  return Buffer.from(lines.join('\n'));
}

function riff(id: string, data: Buffer): Buffer {
  return Buffer.concat([Buffer.from(id, 'latin1'), u32(data.length), data, data.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}
const list = (type: string, ...chunks: Buffer[]) => riff('LIST', Buffer.concat([Buffer.from(type, 'latin1'), ...chunks]));

/**
 * An AVI with one subtitle stream whose first chunk is a GAB2 subtitle file holding `payload` (an HLS
 * playlist): the shape of the "AVI + HLS + xbin" local-file-read exploit against ffmpeg. Both bundled
 * builds already limit GAB2 subtitles to srt/ass; the gate's pins (`-format_whitelist avi`, which the
 * nested open inherits) would stop the nested HLS even where a build does not.
 */
export function gab2Avi(payload: Buffer): Buffer {
  const avih = Buffer.concat([u32(100000), u32(0), u32(0), u32(0x10), u32(1), u32(0), u32(1), u32(0), u32(0), u32(0), Buffer.alloc(16)]);
  const strh = Buffer.concat([Buffer.from('txts'), u32(0), u32(0), u16(0), u16(0), u32(0), u32(1), u32(1), u32(0), u32(1), u32(0), u32(0xffffffff), u32(0), Buffer.alloc(8)]);
  const gab2 = Buffer.concat([Buffer.from('GAB2\0', 'latin1'), u16(2), u32(0), u16(4), u32(payload.length), payload]);
  const hdrl = list('hdrl', riff('avih', avih), list('strl', riff('strh', strh), riff('strf', Buffer.alloc(4))));
  const movi = list('movi', riff('00tx', gab2));
  const idx1 = riff('idx1', Buffer.concat([Buffer.from('00tx'), u32(0x10), u32(4), u32(gab2.length)]));
  return riff('RIFF', Buffer.concat([Buffer.from('AVI '), hdrl, movi, idx1]));
}

export const svgImage = (): Buffer =>
  Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="64" height="64"><image xlink:href="file:///etc/passwd" width="64" height="64"/></svg>\n');

export const htmlPage = (): Buffer => Buffer.from('<!DOCTYPE html><html><body><img src="file:///etc/passwd"><iframe src="http://169.254.169.254/"></iframe></body></html>\n');

function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  return Buffer.concat([u32be(data.length), body, u32be(crc32(body))]);
}

/** A valid PNG declaring width x height 1-bit gray pixels, all zero: a few dozen KB that decode to `width*height` bytes. */
export function bombPng(width: number, height: number): Buffer {
  const ihdr = Buffer.concat([u32be(width), u32be(height), Buffer.from([1, 0, 0, 0, 0])]);
  const raw = Buffer.alloc((1 + Math.ceil(width / 8)) * height);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 13, 10, 26, 10]), pngChunk('IHDR', ihdr), pngChunk('IDAT', deflateSync(raw, { level: 9 })), pngChunk('IEND', Buffer.alloc(0))]);
}

/**
 * A valid PNG of width x height transparent RGBA pixels: about 1/1000 of the bytes it decodes to.
 * The zeros are deflated as a stream, so the test never holds the decoded size in memory either.
 */
export async function bombPngRgba(width: number, height: number): Promise<Buffer> {
  const ihdr = Buffer.concat([u32be(width), u32be(height), Buffer.from([8, 6, 0, 0, 0])]);
  const row = Buffer.alloc(1 + 4 * width);
  const deflate = createDeflate({ level: constants.Z_BEST_COMPRESSION });
  const chunks: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise((resolve) => deflate.on('end', resolve));
  for (let y = 0; y < height; y += 1) if (!deflate.write(row)) await new Promise((resolve) => deflate.once('drain', resolve));
  deflate.end();
  await done;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 13, 10, 26, 10]), pngChunk('IHDR', ihdr), pngChunk('IDAT', Buffer.concat(chunks)), pngChunk('IEND', Buffer.alloc(0))]);
}

/** `payload` behind a real MP4 `ftyp` box or PNG signature and header: it sniffs as that type. */
export function disguised(as: 'mp4' | 'png', payload: Buffer): Buffer {
  if (as === 'mp4') return Buffer.concat([u32be(20), Buffer.from('ftypisom'), u32be(0x200), Buffer.from('isom'), payload]);
  const ihdr = Buffer.concat([u32be(64), u32be(64), Buffer.from([8, 6, 0, 0, 0])]);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 13, 10, 26, 10]), pngChunk('IHDR', ihdr), payload]);
}

/** A minimal stored ZIP holding one file. */
export function zipArchive(name: string, content: Buffer): Buffer {
  const fileName = Buffer.from(name);
  const crc = crc32(content);
  const local = Buffer.concat([u32(0x04034b50), u16(10), u16(0), u16(0), u16(0), u16(0), u32(crc), u32(content.length), u32(content.length), u16(fileName.length), u16(0), fileName, content]);
  const central = Buffer.concat([u32(0x02014b50), u16(10), u16(10), u16(0), u16(0), u16(0), u16(0), u32(crc), u32(content.length), u32(content.length), u16(fileName.length), u16(0), u16(0), u16(0), u16(0), u32(0), u32(0), fileName]);
  const end = Buffer.concat([u32(0x06054b50), u16(0), u16(0), u16(1), u16(1), u32(central.length), u32(local.length), u16(0)]);
  return Buffer.concat([local, central, end]);
}

/** A real JPEG with a ZIP archive appended: both a valid image and a valid archive. */
export async function jpegZipPolyglot(): Promise<Buffer> {
  const jpeg = await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 200, g: 40, b: 40 } } }).jpeg().toBuffer();
  return Buffer.concat([jpeg, zipArchive('payload.html', htmlPage())]);
}

export async function pngImage(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 20, g: 120, b: 200 } } }).png().toBuffer();
}

/** Encodes a short test clip with ffmpeg: `codec` args, then the container format. */
export async function clip(size: string, seconds: number, codecArgs: string[], format: string, rate = 10): Promise<Buffer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'hostile-clip-'));
  try {
    const out = path.join(dir, 'clip');
    await run(ffmpegPath(), ['-v', 'error', '-nostdin', '-f', 'lavfi', '-i', `testsrc=s=${size}:r=${rate}:d=${seconds}`, ...codecArgs, '-f', format, '-y', out]);
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export const h264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];
export const mjpeg = ['-c:v', 'mjpeg', '-q:v', '5'];

/** An MP4 cut short: its moov (written last) is gone, so nothing can be decoded. */
export async function truncatedMp4(): Promise<Buffer> {
  const whole = await clip('160x120', 1, h264, 'mp4');
  return whole.subarray(0, Math.floor(whole.length * 0.6));
}

function offsetOf(file: Buffer, fourcc: string): number {
  const at = file.indexOf(Buffer.from(fourcc, 'latin1'));
  if (at < 0) throw new Error(`no ${fourcc} chunk`);
  return at + 8; // past the id and the size
}

/** An MJPEG AVI of tiny 64x48 frames whose headers and JPEG frame headers all declare width x height. */
export async function liarDimensionsAvi(width: number, height: number): Promise<Buffer> {
  const file = Buffer.from(await clip('64x48', 0.3, mjpeg, 'avi'));
  const avih = offsetOf(file, 'avih');
  file.writeUInt32LE(width, avih + 32);
  file.writeUInt32LE(height, avih + 36);
  const strf = offsetOf(file, 'strf');
  file.writeInt32LE(width, strf + 4);
  file.writeInt32LE(height, strf + 8);
  for (let at = file.indexOf(Buffer.from([0xff, 0xc0])); at >= 0; at = file.indexOf(Buffer.from([0xff, 0xc0]), at + 2)) {
    file.writeUInt16BE(height, at + 5);
    file.writeUInt16BE(width, at + 7);
  }
  return file;
}

/** An MJPEG AVI whose stream header and format claim H.264. */
export async function codecLiarAvi(): Promise<Buffer> {
  const file = Buffer.from(await clip('64x48', 0.3, mjpeg, 'avi'));
  file.write('H264', offsetOf(file, 'strh') + 4, 'latin1');
  file.write('H264', offsetOf(file, 'strf') + 16, 'latin1');
  return file;
}
