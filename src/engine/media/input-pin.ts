/**
 * How every ffmpeg and ffprobe input is opened: with the demuxer matching the sniffed type (never
 * ffmpeg's own guess from the content, which is how a "PNG" turns out to be an HLS playlist), with
 * that demuxer as the only one allowed (nested opens, such as an AVI's GAB2 subtitles, inherit the
 * list), with the file and pipe protocols only (no network, no concat:, subfile:, data:...), and with
 * a cap on the pixels a decoder may allocate per frame. Pure: the argument builders use it.
 */
import { SupportedMediaType } from './sniff';

export const ALLOWED_PROTOCOLS = 'file,pipe';

/** ffmpeg's demuxer for each accepted type */
export const DEMUXER_OF: Readonly<Record<SupportedMediaType, string>> = {
  'video/mp4': 'mov',
  'video/quicktime': 'mov',
  'video/webm': 'matroska',
  'video/x-msvideo': 'avi',
  'image/png': 'png_pipe',
  'image/jpeg': 'jpeg_pipe',
  'image/webp': 'webp_pipe',
  'image/gif': 'gif',
};

export interface InputPin {
  /** the one demuxer allowed for this input */
  demuxer: string;
  /** decoders refuse frames of more pixels than this (ffmpeg's `max_pixels`); undefined: no cap */
  maxPixels?: number;
}

export function pinFor(type: SupportedMediaType, maxPixels?: number): InputPin {
  return { demuxer: DEMUXER_OF[type], maxPixels };
}

/**
 * The largest block ffprobe may allocate while it reads a file (`-max_alloc`). An MP4's compressed
 * header (`cmov`) states the size it unpacks to, up to 4 GB, and ffprobe allocates that before it
 * unpacks: a 2 KB file had it allocate 300 MB, and an 84 KB one unpacked to an 80 MB title tag. A
 * real header is a few MB even for hours of video; ffprobe refuses the rest ("Cannot allocate memory").
 */
export const PROBE_MAX_ALLOC_BYTES = 256 * 1024 * 1024;

/** ffprobe's global options for an input it reads (before the pin's) */
export const PROBE_ARGS: readonly string[] = ['-max_alloc', String(PROBE_MAX_ALLOC_BYTES)];

/** The options that go before an input's `-i` (ffmpeg and ffprobe alike). */
export function pinArgs(pin: InputPin): string[] {
  return [
    '-protocol_whitelist', ALLOWED_PROTOCOLS,
    '-format_whitelist', pin.demuxer,
    '-f', pin.demuxer,
    ...(pin.maxPixels !== undefined ? ['-max_pixels', String(pin.maxPixels)] : []),
  ];
}
