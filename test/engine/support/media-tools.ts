/** Helpers for the engine's format tests: make small clips, decode outputs back, read zips. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import sharp from 'sharp';
import * as yauzl from 'yauzl';
import { ffmpegPath, ffprobePath } from '../../../src/engine/media/binaries';

const run = promisify(execFile);

export async function ffmpeg(args: string[]): Promise<Buffer> {
  const { stdout } = await run(ffmpegPath(), ['-v', 'error', '-nostdin', ...args], { encoding: 'buffer', maxBuffer: 512 * 1024 * 1024 });
  return stdout;
}

/**
 * Seconds from the file's start to its first loud audio sample: the samples laid on the file's
 * timeline (a track that starts late padded with silence), not read from the track's first sample.
 */
export async function soundOnset(path: string, threshold = 1000): Promise<number> {
  const rate = 8000;
  const samples = await ffmpeg(['-i', path, '-map', '0:a:0', '-af', 'aresample=async=1:first_pts=0', '-ac', '1', '-ar', String(rate), '-f', 's16le', '-']);
  for (let i = 0; i + 1 < samples.length; i += 2) if (Math.abs(samples.readInt16LE(i)) > threshold) return i / 2 / rate;
  throw new Error(`no sound in ${path}`);
}

/** how long the first audio track plays, decoded (webm's Opus states no duration of its own) */
export async function soundSeconds(path: string): Promise<number> {
  const rate = 8000;
  const samples = await ffmpeg(['-i', path, '-map', '0:a:0', '-ac', '1', '-ar', String(rate), '-f', 's16le', '-']);
  return samples.length / 2 / rate;
}

export interface StreamInfo {
  codec_type: string;
  codec_name: string;
  width?: number;
  height?: number;
  pix_fmt?: string;
  color_transfer?: string;
  color_space?: string;
  field_order?: string;
  sample_aspect_ratio?: string;
  nb_read_frames?: string;
  duration?: string;
  tags?: Record<string, string>;
}

export async function probeStreams(path: string): Promise<{ streams: StreamInfo[]; format: { duration?: string; format_name: string } }> {
  const { stdout } = await run(ffprobePath(), ['-v', 'error', '-count_frames', '-print_format', 'json', '-show_streams', '-show_format', path]);
  return JSON.parse(stdout);
}

export interface DecodedFrames {
  width: number;
  height: number;
  /** RGBA, one buffer per frame */
  frames: Buffer[];
}

/** Decodes a video output to RGBA frames; VP9 goes through libvpx so its alpha survives. */
export async function decodeVideoRgba(path: string, width: number, height: number, vp9Alpha = false): Promise<DecodedFrames> {
  const raw = await ffmpeg([...(vp9Alpha ? ['-c:v', 'libvpx-vp9'] : []), '-i', path, '-vsync', 'passthrough', '-f', 'rawvideo', '-pix_fmt', 'rgba', 'pipe:1']);
  return { width, height, frames: split(raw, width * height * 4) };
}

/** Decodes an animated GIF or WebP with libvips (which applies each frame's disposal). */
export async function decodeAnimatedRgba(path: string): Promise<DecodedFrames & { pages: number; delay: number[]; hasAlpha: boolean }> {
  const image = sharp(path, { animated: true });
  const metadata = await image.metadata();
  const raw = await image.ensureAlpha().raw().toBuffer();
  const width = metadata.width!;
  const height = metadata.pageHeight ?? metadata.height!;
  return { width, height, frames: split(raw, width * height * 4), pages: metadata.pages ?? 1, delay: metadata.delay ?? [], hasAlpha: metadata.hasAlpha ?? false };
}

export async function decodePngRgba(png: Buffer): Promise<{ width: number; height: number; channels: number; data: Buffer }> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, channels: info.channels, data };
}

export async function readZipEntries(path: string): Promise<Map<string, Buffer>> {
  const zip = await promisify<string, yauzl.Options, yauzl.ZipFile>(yauzl.open)(path, { lazyEntries: true });
  const entries = new Map<string, Buffer>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      zip.openReadStream(entry, (error, stream) => {
        if (error) return reject(error);
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          entries.set(entry.fileName, Buffer.concat(chunks));
          zip.readEntry();
        });
      });
    });
    zip.on('end', resolve);
    zip.on('error', reject);
    zip.readEntry();
  });
  return entries;
}

export function alphaAt(frames: DecodedFrames, frame: number, x: number, y: number): number {
  return frames.frames[frame][(y * frames.width + x) * 4 + 3];
}

export function rgbAt(frames: DecodedFrames, frame: number, x: number, y: number): [number, number, number] {
  const offset = (y * frames.width + x) * 4;
  const data = frames.frames[frame];
  return [data[offset], data[offset + 1], data[offset + 2]];
}

function split(raw: Buffer, frameBytes: number): Buffer[] {
  const frames: Buffer[] = [];
  for (let offset = 0; offset + frameBytes <= raw.length; offset += frameBytes) frames.push(raw.subarray(offset, offset + frameBytes));
  return frames;
}
