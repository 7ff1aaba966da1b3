import { execFileSync } from 'child_process';
import { resolve } from 'path';

/** test media live beside the project root (../shared/media), as the media README says */
export const MEDIA_DIR = process.env.BACKDROP_MEDIA_DIR ?? resolve(process.cwd(), '../shared/media');

export function ffmpegPath(): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return process.env.FFMPEG_PATH ?? (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;
}

function splitFrames(bytes: Buffer, frameSize: number): Uint8Array[] {
  const frames: Uint8Array[] = [];
  for (let offset = 0; offset + frameSize <= bytes.length; offset += frameSize) frames.push(bytes.subarray(offset, offset + frameSize));
  return frames;
}

/** every frame of a clip as packed RGB24, scaled by ffmpeg like the pipeline's decoder does */
const framesArgs = (frameLimit: number): string[] => (Number.isFinite(frameLimit) ? ['-frames:v', String(frameLimit)] : []);

/** the first `frameLimit` frames (all by default) scaled to width x height, RGB24 */
export function decodeRgbFrames(file: string, width: number, height: number, frameLimit = Infinity): Uint8Array[] {
  const bytes = execFileSync(ffmpegPath(), ['-v', 'error', '-i', file, ...framesArgs(frameLimit), '-vf', `scale=${width}:${height}`, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], {
    maxBuffer: 1 << 30,
  });
  return splitFrames(bytes, width * height * 3);
}

/** the ground-truth alpha of every frame (gray8) */
export function decodeAlphaFrames(file: string, width: number, height: number, frameLimit = Infinity): Uint8Array[] {
  const bytes = execFileSync(ffmpegPath(), ['-v', 'error', '-i', file, ...framesArgs(frameLimit), '-f', 'rawvideo', '-pix_fmt', 'gray', '-'], { maxBuffer: 1 << 30 });
  return splitFrames(bytes, width * height);
}
