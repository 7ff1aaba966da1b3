/**
 * ffprobe and the one-frame decode check, run pinned (input-pin.ts). The input gate (input-gate.ts)
 * calls them once it has sniffed the file's type; nothing here guesses a format.
 */
import { EngineError, VideoInfo, withoutFilePaths } from '../types';
import { ffmpegPath, ffprobePath } from './binaries';
import { evenSide } from '../pipeline/geometry';
import { parseVideoStart, VideoStart } from '../pipeline/input-seek';
import { HdrSignal, hdrSignalOf } from '../pipeline/tone-map';
import { ColourMatrix, colourMatrixOf } from '../pipeline/colour-matrix';
import { AlphaDecoder, ALPHA_DECODERS, decoderArgs } from './alpha-decoder';
import { InputPin, pinArgs, PROBE_ARGS } from './input-pin';
import { measurePacketSpan, PacketSpan } from './packet-span';
import { MediaProcessError, runToCompletion, StdoutTooLarge } from './process';

interface FfprobeStream {
  index?: number;
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  pix_fmt?: string;
  color_transfer?: string;
  color_primaries?: string;
  color_space?: string;
  color_range?: string;
  field_order?: string;
  sample_aspect_ratio?: string;
  r_frame_rate?: string;
  avg_frame_rate?: string;
  nb_frames?: string;
  duration?: string;
  start_pts?: number;
  time_base?: string;
  tags?: Record<string, string>;
  disposition?: { attached_pic?: number };
  side_data_list?: { rotation?: number | string }[];
}

export interface FfprobeOutput {
  streams?: FfprobeStream[];
  format?: { format_name?: string; duration?: string; start_time?: string };
}

/** What ffprobe tells about a video, plus what the ffmpeg argument builders need to decode it. */
export interface ParsedVideo extends VideoInfo {
  /** the index in the file of the video stream read (videoStreamOf): every ffmpeg maps this one */
  videoStream: number;
  /** VP8 or VP9 with alpha only decodes its alpha through libvpx (`-c:v libvpx` or `libvpx-vp9` before `-i`); undefined: ffmpeg's own decoder */
  alphaDecoder?: AlphaDecoder;
  /** the video stream's first timestamp; a chunk of a long job seeks its input with it */
  videoStart?: VideoStart;
  /** PQ or HLG: the pipeline tone-maps it to SDR (tone-map.ts) */
  hdr?: HdrSignal;
  /** the YCbCr matrix its pictures are decoded with (colour-matrix.ts) */
  colourMatrix?: ColourMatrix;
  /** fields, not frames (1080i broadcast and camcorders): the pipeline deinterlaces it */
  interlaced?: boolean;
  /** pixels that are not square (HDV, DV, DVD): width and height are the display size, in square pixels */
  anamorphic?: boolean;
  /** full-range YCbCr in a pixel format whose name does not say so (not yuvj: 10-bit HEVC, VP9): the encoder brings it to video range */
  fullRange?: boolean;
}

/** A video the input gate admitted: its probe and how every later ffmpeg must open it. */
export interface ProbedVideo extends ParsedVideo {
  pin: InputPin;
  /** how long the video stream's packets span (packet-span.ts): where its decoded picture ends, whatever its header says */
  packetSpanSeconds?: number;
}

const DECODE_CHECK_SIZE = 16;
/**
 * The most of ffprobe's JSON that is read. A video's is a few KB (streams, colour, a few tags); but
 * ffprobe prints every metadata tag, and an 84 KB MP4 whose compressed header (`cmov`) unpacked to
 * an 80 MB title had the API hold 1.65 GB of JSON (a title near 2 GB would have taken gigabytes
 * more). Past this the file is refused.
 */
export const PROBE_OUTPUT_LIMIT_BYTES = 1024 * 1024;
/** picture codecs that files also use for cover art and thumbnails */
const STILL_CODECS = ['mjpeg', 'png', 'bmp'];

export function buildProbeArgs(path: string, pin: InputPin): string[] {
  return ['-v', 'error', ...PROBE_ARGS, ...pinArgs(pin), '-print_format', 'json', '-show_format', '-show_streams', '-i', path];
}

/** Decodes the first frame of video stream `stream` into a 16x16 gray thumbnail: proof that the stream decodes. */
export function buildDecodeCheckArgs(path: string, pin: InputPin, alphaDecoder?: AlphaDecoder, stream?: number): string[] {
  return buildFirstFrameArgs(path, pin, { width: DECODE_CHECK_SIZE, height: DECODE_CHECK_SIZE, pixelFormat: 'gray' }, alphaDecoder, stream);
}

/** a still of the first frame: its size and pixel format (raw, on stdout) */
export interface StillSpec {
  width: number;
  height: number;
  pixelFormat: 'gray' | 'rgb24';
}

/** Decodes the first frame of video stream `stream` into a raw still of `still`'s size and format. */
export function buildFirstFrameArgs(path: string, pin: InputPin, still: StillSpec, alphaDecoder?: AlphaDecoder, stream?: number): string[] {
  return [
    '-v', 'error', '-nostdin',
    ...pinArgs(pin),
    ...decoderArgs(alphaDecoder),
    '-i', path,
    '-map', stream === undefined ? '0:v:0' : `0:${stream}`, '-frames:v', '1',
    '-vf', `scale=${still.width}:${still.height}`,
    '-f', 'rawvideo', '-pix_fmt', still.pixelFormat, 'pipe:1',
  ];
}

/**
 * ffprobe only, pinned: what the pipeline needs to know. A decoder refusing a frame over the pin's
 * pixel cap makes ffprobe fail; `onOversized` turns the size it names into the caller's message.
 */
export async function readVideoInfo(
  path: string,
  pin: InputPin,
  signal?: AbortSignal,
  onOversized?: (size: { width: number; height: number }) => EngineError,
): Promise<ProbedVideo> {
  let json: FfprobeOutput;
  let guessedTimes = false;
  let packetSpanSeconds: number | undefined;
  let frameInterval: number | undefined;
  try {
    const { stdout, stderr } = await runToCompletion(ffprobePath(), buildProbeArgs(path, pin), signal, { maxStdoutBytes: PROBE_OUTPUT_LIMIT_BYTES });
    // ffprobe may succeed with the refused stream's size zeroed: the log says what was refused
    const oversized = refusedPictureSize(stderr);
    if (oversized && onOversized) throw onOversized(oversized);
    json = JSON.parse(stdout.toString('utf8')) as FfprobeOutput;
    const video = videoStreamOf(json);
    if (video) {
      const span = await measurePacketSpan(path, pin, video.index ?? 0, signal);
      if (span) json = withPacketSpan(json, span);
      guessedTimes = span?.guessedTimes ?? false;
      packetSpanSeconds = span?.seconds;
      frameInterval = span?.frameInterval;
    }
  } catch (error) {
    if (error instanceof EngineError) throw error;
    if (error instanceof StdoutTooLarge && !signal?.aborted) throw new EngineError('input_invalid', `the file's metadata is too large: its description went past ${PROBE_OUTPUT_LIMIT_BYTES / 1024 / 1024} MB`);
    const oversized = error instanceof MediaProcessError ? refusedPictureSize(error.stderrTail) : undefined;
    if (oversized && onOversized && !signal?.aborted) throw onOversized(oversized);
    throw asInputInvalid(error, 'the file could not be read as a video', signal);
  }
  const parsed = parseProbeOutput(json, frameInterval);
  return { ...parsed, pin, ...(packetSpanSeconds ? { packetSpanSeconds } : {}), ...(parsed.videoStart && guessedTimes ? { videoStart: { ...parsed.videoStart, guessedTimes } } : {}) };
}

/** Pure: the frame size a decoder refused for exceeding `max_pixels`, from ffmpeg's log. */
export function refusedPictureSize(stderr: string): { width: number; height: number } | undefined {
  const match = stderr.match(/Picture size (\d+)x(\d+) exceeds specified max pixel count/);
  return match ? { width: Number(match[1]), height: Number(match[2]) } : undefined;
}

/** the long side of the video's first frame as proveItDecodes returns it (enough to find letterbox and pillarbox bars) */
const FIRST_FRAME_LONG_SIDE = 320;

/** a small still of a video's first frame, packed RGB24 at the video's display aspect */
export interface FirstFrame {
  width: number;
  height: number;
  data: Buffer;
}

/** the size of the first frame's still: the display aspect, long side at most FIRST_FRAME_LONG_SIDE, even sides */
function firstFrameSize(width: number, height: number): { width: number; height: number } {
  const scale = Math.min(1, FIRST_FRAME_LONG_SIDE / Math.max(width, height));
  return { width: evenSide(width * scale), height: evenSide(height * scale) };
}

/** Decodes the first frame into a small still (FirstFrame); input_invalid when it does not decode. */
export async function proveItDecodes(path: string, info: ProbedVideo, signal?: AbortSignal): Promise<FirstFrame> {
  const size = firstFrameSize(info.width, info.height);
  const args = buildFirstFrameArgs(path, info.pin, { ...size, pixelFormat: 'rgb24' }, info.alphaDecoder, info.videoStream);
  const data = await decodeStill(args, size.width * size.height * 3, 'the video stream does not decode', signal);
  return { ...size, data };
}

/** Decodes the first frame of a pinned image; input_invalid with `message` when it does not. */
export async function proveFrameDecodes(path: string, pin: InputPin, message: string, signal?: AbortSignal): Promise<void> {
  await decodeStill(buildDecodeCheckArgs(path, pin), DECODE_CHECK_SIZE * DECODE_CHECK_SIZE, message, signal);
}

/** runs a one-frame decode; its raw still, or input_invalid with `message` when no frame of `bytes` came out */
async function decodeStill(args: string[], bytes: number, message: string, signal?: AbortSignal): Promise<Buffer> {
  try {
    const { stdout } = await runToCompletion(ffmpegPath(), args, signal, { maxStdoutBytes: bytes });
    if (stdout.length !== bytes) throw new Error('no frame decoded');
    return stdout;
  } catch (error) {
    throw asInputInvalid(error, message, signal);
  }
}

/**
 * Pure: ffprobe's JSON to VideoInfo. Throws input_invalid when there is no usable video stream.
 * `frameInterval`: the interval most of the stream's packets follow each other at (packet-span.ts).
 */
export function parseProbeOutput(json: FfprobeOutput, frameInterval?: number): ParsedVideo {
  const video = videoStreamOf(json);
  if (!video || !video.width || !video.height) {
    throw new EngineError('input_invalid', 'no video stream found in the input');
  }
  const averageFps = parseFrameRate(video.avg_frame_rate);
  const fps = readingFrameRate(averageFps, parseFrameRate(video.r_frame_rate), frameInterval);
  if (!fps) throw new EngineError('input_invalid', 'the video stream has no frame rate');
  const durationSeconds = durationOf(json, video);
  if (!durationSeconds) throw new EngineError('input_invalid', 'the video has no duration');

  const rotation = parseRotation(video);
  const quarterTurn = rotation === 90 || rotation === 270;
  const pixelAspect = parsePixelAspect(video.sample_aspect_ratio);
  // the display size in square pixels: the coded width stretched by the pixels' aspect, then turned
  const displayWidth = Math.max(1, Math.round(video.width * pixelAspect));
  // a variable-rate video read at its nominal rate gives more frames than it stores
  const storedFrames = fps === averageFps ? parsePositive(video.nb_frames) : undefined;
  const frameCount = storedFrames ?? Math.max(1, Math.round(durationSeconds * fps));
  const hasAlpha = pixelFormatHasAlpha(video.pix_fmt) || tag(video.tags, 'alpha_mode') === '1';
  const videoCodec = video.codec_name ?? 'unknown';
  const hdr = hdrSignalOf(video);

  return {
    durationSeconds,
    fps,
    width: quarterTurn ? video.height : displayWidth,
    height: quarterTurn ? displayWidth : video.height,
    rotation,
    frameCount: Math.round(frameCount),
    hasAudio: json.streams?.some((stream) => stream.codec_type === 'audio') ?? false,
    hasAlpha,
    videoCodec,
    formatName: json.format?.format_name ?? 'unknown',
    videoStream: video.index ?? 0,
    ...(hasAlpha && ALPHA_DECODERS[videoCodec] ? { alphaDecoder: ALPHA_DECODERS[videoCodec] } : {}),
    videoStart: parseVideoStart(video.start_pts, video.time_base, json.format?.start_time),
    ...(hdr ? { hdr } : {}),
    colourMatrix: colourMatrixOf(video.color_space, video.height, hdr !== undefined),
    ...(INTERLACED_FIELD_ORDERS.includes(video.field_order ?? '') ? { interlaced: true } : {}),
    ...(pixelAspect !== 1 ? { anamorphic: true } : {}),
    ...(video.color_range === 'pc' && /^yuv(?!j)/.test(video.pix_fmt ?? '') ? { fullRange: true } : {}),
  };
}

/**
 * The probe with the packets' measured span (packet-span.ts) as the video stream's duration where
 * it states none or one that the span belies by more than statedDurationTolerance: a header
 * edited to say 5 s over 20 s of pictures (billed and limited as 5 s, decoded whole), a file cut
 * short that still says its whole length (its later chunks found no frames). Its average frame rate,
 * which ffmpeg works out from that duration (mp4: frames over the stated length), is then the
 * packets' over the span too; a stream with no stated duration keeps an average rate it gives
 * (a live WebM gives none: its nominal rate is its 1 kHz timebase). A stream that gives no average
 * rate takes the packets' even where its stated duration holds: a browser's recording remuxed with
 * its duration written in was read at its timebase's 1000 fps (refused over MAX_VIDEO_FPS, and
 * resampled to 1000 fps before that).
 */
export function withPacketSpan(json: FfprobeOutput, span: Pick<PacketSpan, 'seconds' | 'packets'>): FfprobeOutput {
  const video = videoStreamOf(json);
  if (!video) return json;
  const stated = durationOf(json, video);
  const measuredRate = `${span.packets}/${span.seconds}`;
  if (stated !== undefined && Math.abs(stated - span.seconds) <= statedDurationTolerance(span.seconds)) {
    if (parseFrameRate(video.avg_frame_rate)) return json;
    return { ...json, streams: json.streams?.map((stream) => (stream === video ? { ...video, avg_frame_rate: measuredRate } : stream)) };
  }
  const measured: FfprobeStream = {
    ...video,
    duration: String(span.seconds),
    avg_frame_rate: stated === undefined && parseFrameRate(video.avg_frame_rate) ? video.avg_frame_rate : measuredRate,
  };
  return { ...json, streams: json.streams?.map((stream) => (stream === video ? measured : stream)) };
}

/** how far a stated duration may be from the packets' span and still be taken: half a second, or 1% of a long video */
function statedDurationTolerance(spanSeconds: number): number {
  return Math.max(0.5, spanSeconds / 100);
}

/**
 * The video stream the pipeline reads: the first that is moving pictures. Cover art and a track of
 * one still picture (a thumbnail some tools store as the file's first video track) are passed over
 * while a moving one follows; a file of one still picture alone is read as a one-frame video.
 */
function videoStreamOf(json: FfprobeOutput): FfprobeStream | undefined {
  const videos = json.streams?.filter((stream) => stream.codec_type === 'video' && !isCoverArt(stream)) ?? [];
  return videos.find((stream) => !isStillPicture(stream)) ?? videos[0];
}

/**
 * The video stream's own duration, else Matroska's tag for it, else the container's; undefined when
 * none says. The container's lasts as long as its longest stream: 4 s of video with 20 s of audio was
 * taken for 20 s (billed so, refused as too long, cut into chunks past the picture's end).
 * Matroska's two say where the stream and the segment end, counted from 0: a WebM whose timestamps
 * start at 2.5 s was taken for 2.5 s longer than it plays, so its video's start is taken off them.
 */
function durationOf(json: FfprobeOutput, video: FfprobeStream): number | undefined {
  const ownLength = parsePositive(video.duration);
  if (ownLength) return ownLength;
  const end = parseTagDuration(video.tags) ?? parsePositive(json.format?.duration);
  if (end === undefined || !isMatroska(json)) return end;
  return parsePositive(String(end - startSecondsOf(video)));
}

function isMatroska(json: FfprobeOutput): boolean {
  return (json.format?.format_name ?? '').split(',').includes('matroska');
}

/** the stream's first timestamp in seconds (0 where ffprobe gave none) */
function startSecondsOf(stream: FfprobeStream): number {
  const start = parseVideoStart(stream.start_pts, stream.time_base, '0');
  return start ? (start.pts * start.timeBase[0]) / start.timeBase[1] : 0;
}

/**
 * The width of a pixel over its height, from ffprobe's "4:3"; 1 when unknown ("0:1"), absurd
 * (outside 1/4..4) or within 1% of square, as a player would round it.
 */
function parsePixelAspect(value: string | undefined): number {
  const [width, height] = (value ?? '').split(':').map(Number);
  const aspect = width / height;
  return Number.isFinite(aspect) && aspect >= 0.25 && aspect <= 4 && Math.abs(aspect - 1) > 0.01 ? aspect : 1;
}

/** ffprobe's field orders of interlaced video: top or bottom field first, coded and displayed */
const INTERLACED_FIELD_ORDERS = ['tt', 'bb', 'tb', 'bt'];

function isCoverArt(stream: FfprobeStream): boolean {
  return stream.disposition?.attached_pic === 1 || (isStillCodec(stream) && !stream.avg_frame_rate?.match(/^[1-9]/));
}

function isStillPicture(stream: FfprobeStream): boolean {
  return isStillCodec(stream) && parsePositive(stream.nb_frames) === 1;
}

function isStillCodec(stream: FfprobeStream): boolean {
  return STILL_CODECS.includes(stream.codec_name ?? '');
}

/** how far above the average rate a nominal rate is believed (readingFrameRate) */
const NOMINAL_RATE_MAX_OVER_AVERAGE = 1.5;
/** how close a nominal rate's interval must be to the packets' commonest one to be believed at any average */
const NOMINAL_INTERVAL_TOLERANCE = 0.02;

/**
 * The rate a video's frames are read at. A variable-rate video (a phone's that drops from 30 to 20
 * fps in low light, a clip with a pause) has an average rate below its nominal one, and resampled
 * to its average its moving parts lose frames and judder. It is read at its nominal rate, its
 * pauses holding their picture as a player shows them, where that rate is believable: above the
 * average by no more than half, or the rate most of its frames follow each other at
 * (`frameInterval`), however long its pauses (a screen recording, a clip held on one frame for
 * seconds: read at its average, a 30 fps clip with a 3 s pause lost every other moving frame). A
 * timebase's 1000 fps or a doubled field rate is not a frame rate.
 */
export function readingFrameRate(average: number | undefined, nominal: number | undefined, frameInterval?: number): number | undefined {
  if (average === undefined) return nominal;
  if (nominal === undefined || nominal <= average) return average;
  const followsFrames = frameInterval !== undefined && Math.abs(nominal * frameInterval - 1) <= NOMINAL_INTERVAL_TOLERANCE;
  return nominal <= average * NOMINAL_RATE_MAX_OVER_AVERAGE || followsFrames ? nominal : average;
}

/** "30000/1001" -> 29.97; "0/0" and nonsense -> undefined */
export function parseFrameRate(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const [numerator, denominator = '1'] = value.split('/');
  const rate = Number(numerator) / Number(denominator);
  return Number.isFinite(rate) && rate > 0 && rate <= 1000 ? rate : undefined;
}

/**
 * Clockwise degrees the player turns the picture, 0 to 360 (a quarter turn within a degree of one): the classic `rotate` tag
 * when present, otherwise the display matrix (ffprobe reports that one counter-clockwise).
 */
function parseRotation(stream: FfprobeStream): number {
  const rotateTag = tag(stream.tags, 'rotate');
  let clockwise = 0;
  if (rotateTag !== undefined && Number.isFinite(Number(rotateTag))) {
    clockwise = Number(rotateTag);
  } else {
    const matrix = stream.side_data_list?.find((data) => data.rotation !== undefined);
    if (matrix) clockwise = -Number(matrix.rotation);
  }
  const degrees = ((clockwise % 360) + 360) % 360;
  const nearestQuarter = Math.round(degrees / 90) * 90;
  // within a degree of a quarter turn ffmpeg turns the picture by it, and otherwise turns it within
  // its own size (its rotate filter): a tilt taken for the nearest quarter turn had the encoder
  // expect the sides swapped, and the job failed output_failed
  if (Math.abs(degrees - nearestQuarter) < ROTATION_SNAP_DEGREES) return nearestQuarter % 360;
  return degrees;
}

const ROTATION_SNAP_DEGREES = 1;

function pixelFormatHasAlpha(pixelFormat: string | undefined): boolean {
  return /^(yuva|rgba|bgra|argb|abgr|gbrap|ya[0-9])/.test(pixelFormat ?? '');
}

function tag(tags: Record<string, string> | undefined, name: string): string | undefined {
  if (!tags) return undefined;
  const key = Object.keys(tags).find((candidate) => candidate.toLowerCase() === name);
  return key === undefined ? undefined : tags[key];
}

function parsePositive(value: string | undefined): number | undefined {
  const number = Number(value);
  return value !== undefined && Number.isFinite(number) && number > 0 ? number : undefined;
}

/** Matroska keeps the stream duration only as a "HH:MM:SS.frac" tag. */
function parseTagDuration(tags: Record<string, string> | undefined): number | undefined {
  const match = tag(tags, 'duration')?.match(/^(\d+):(\d+):(\d+(?:\.\d+)?)$/);
  if (!match) return undefined;
  return parsePositive(String(Number(match[1]) * 3600 + Number(match[2]) * 60 + Number(match[3])));
}

function asInputInvalid(error: unknown, message: string, signal: AbortSignal | undefined): Error {
  if (signal?.aborted) return new EngineError('canceled', 'probe aborted');
  if (error instanceof EngineError) return error;
  const detail = error instanceof Error ? `: ${tidyToolMessage(error.message)}` : '';
  return new EngineError('input_invalid', `${message}${detail}`);
}

/**
 * ffmpeg's log as a user reads it: no paths of this machine (ffmpeg names the files it read), no
 * `[decoder @ 0x...]` prefixes, no "Last message repeated" lines.
 */
export function tidyToolMessage(message: string): string {
  return withoutFilePaths(message)
    .replace(/\[[\w ,]+ @ 0x[0-9a-f]+\] ?/g, '')
    .replace(/\s*Last message repeated \d+ times\s*(\||$)/g, '')
    .replace(/\(exit \d+\):\s*\|\s*/, (match) => match.slice(0, match.indexOf(':') + 1) + ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
