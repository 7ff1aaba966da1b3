/**
 * The one input gate: everything ffmpeg will read (an upload, a fetched video, a fetched background
 * image) passes here first, wherever it came from.
 *
 * 1. The bytes are sniffed: one of the accepted video containers, or PNG, JPEG, WebP or GIF for an
 *    image. Anything else (an HLS playlist, SVG, HTML, a concat script...) is refused, whatever its name.
 * 2. A file that is also a ZIP archive (a polyglot) is refused.
 * 3. Its size is read without decoding a frame (ffprobe pinned to the sniffed demuxer for a video,
 *    the header for an image) and checked against the limits.
 * 4. The answer carries the pin every later ffmpeg run must open the file with.
 *
 * Refusals are EngineError('input_invalid') with a message a user can act on.
 */
import { EngineError } from '../types';
import { IMAGE_HEAD_BYTES, imageDimensions, jpegOrientation } from './image-header';
import { InputPin, pinFor } from './input-pin';
import { decoderPixelCap, DEFAULT_MEDIA_LIMITS, frameRateViolation, imageSizeViolation, MediaLimits, videoSizeViolation } from './limits';
import { FirstFrame, ProbedVideo, proveFrameDecodes, proveItDecodes, readVideoInfo } from './probe';
import { describeContent, readHead, sniffImageType, sniffVideoType, SupportedImageType, SupportedVideoType, TYPE_LABELS } from './sniff';
import { endsWithZipArchive } from './zip-polyglot';

export const ACCEPTED_VIDEOS = 'an mp4, mov, webm or avi video';
export const ACCEPTED_IMAGES = 'a PNG, JPEG, WebP or GIF image';

export interface AdmittedVideo extends ProbedVideo {
  type: SupportedVideoType;
}

export interface AdmittedImage {
  type: SupportedImageType;
  width: number;
  height: number;
  pin: InputPin;
  /** a JPEG stored turned or mirrored (its EXIF orientation, 2..8); undefined: upright */
  orientation?: number;
}

/** A refusal for size: the frame or image is larger than the limits allow. */
export class InputTooLarge extends EngineError {
  constructor(message: string) {
    super('input_invalid', message);
    this.name = 'InputTooLarge';
  }
}

const refuse = (message: string) => new EngineError('input_invalid', message);

/**
 * The bytes a fetch must read before it can tell a video (or an image) from anything else: the
 * gate's own sniff and its description of what the bytes are instead.
 */
export const HEAD_BYTES = 4096;

const notAVideo = (head: Uint8Array): string => `the file is ${describeContent(head)}, not ${ACCEPTED_VIDEOS}`;
const notAnImage = (head: Uint8Array): string => `the background image is ${describeContent(head)}, not ${ACCEPTED_IMAGES}`;

/** Pure: why a video whose file begins with `head` is refused by its bytes alone (the gate's words), or null. */
export function videoHeadRefusal(head: Uint8Array): string | null {
  return sniffVideoType(head) ? null : notAVideo(head);
}

/** Pure: why a background image whose file begins with `head` is refused by its bytes alone (the gate's words), or null. */
export function imageHeadRefusal(head: Uint8Array): string | null {
  return sniffImageType(head) ? null : notAnImage(head);
}

/** Sniff, polyglot check, pinned ffprobe and size limits: a video ffmpeg may open with `pin`. */
export async function admitVideo(path: string, limits: MediaLimits = DEFAULT_MEDIA_LIMITS, signal?: AbortSignal): Promise<AdmittedVideo> {
  const head = await readHead(path, HEAD_BYTES);
  const type = sniffVideoType(head);
  if (!type) throw refuse(notAVideo(head));
  if (await endsWithZipArchive(path)) throw refuse(`the file is ${TYPE_LABELS[type]} and a ZIP archive at once (a polyglot); such files are refused`);
  const pin = pinFor(type, decoderPixelCap(limits.maxVideoPixels));
  const oversized = ({ width, height }: { width: number; height: number }) =>
    new InputTooLarge(videoSizeViolation(width, height, limits) ?? `the video is ${width}x${height}, too large to decode`);
  const video = await readVideoInfo(path, pin, signal, oversized);
  const violation = videoSizeViolation(video.width, video.height, limits) ?? frameRateViolation(video.fps, limits);
  if (violation) throw new InputTooLarge(violation);
  return { ...video, type };
}

/**
 * The longest `probe` may take: its packets read (packet-span.ts) and its first frame decoded. A
 * real video of the largest upload takes seconds; a file of millions of tiny packets, or one whose
 * first frame comes only after most of the file, held ffprobe for as long as it liked, on the API.
 */
export const PROBE_DEADLINE_MS = 60_000;

/** admitVideo, then the first frame decoded (a small still of it kept): what an upload or a fetched video must pass, within `deadlineMs`. */
export async function probe(path: string, limits: MediaLimits = DEFAULT_MEDIA_LIMITS, signal?: AbortSignal, deadlineMs = PROBE_DEADLINE_MS): Promise<AdmittedVideo & { firstFrame: FirstFrame }> {
  const deadline = AbortSignal.timeout(deadlineMs);
  const bounded = signal ? AbortSignal.any([signal, deadline]) : deadline;
  try {
    const video = await admitVideo(path, limits, bounded);
    return { ...video, firstFrame: await proveItDecodes(path, video, bounded) };
  } catch (error) {
    if (deadline.aborted && !signal?.aborted) throw refuse(`the file took longer than ${deadlineMs / 1000} s to read`);
    throw error;
  }
}

/** Sniff, polyglot check, size from the header and the limit, then one frame decoded, pinned. */
export async function admitImage(path: string, limits: MediaLimits = DEFAULT_MEDIA_LIMITS, signal?: AbortSignal): Promise<AdmittedImage> {
  const head = await readHead(path, IMAGE_HEAD_BYTES);
  const type = sniffImageType(head);
  if (!type) throw refuse(notAnImage(head));
  if (await endsWithZipArchive(path)) throw refuse(`the background image is ${TYPE_LABELS[type]} and a ZIP archive at once (a polyglot); such files are refused`);
  const size = imageDimensions(type, head);
  if (!size) throw refuse(`the background image's size could not be read from its header (${TYPE_LABELS[type]})`);
  const violation = imageSizeViolation(size.width, size.height, limits);
  if (violation) throw new InputTooLarge(`the background image is too large: ${violation}`);
  const pin = pinFor(type, decoderPixelCap(limits.maxImagePixels));
  await proveFrameDecodes(path, pin, 'the background image does not decode', signal);
  const orientation = type === 'image/jpeg' ? jpegOrientation(head) : undefined;
  return { type, ...size, pin, ...(orientation ? { orientation } : {}) };
}
