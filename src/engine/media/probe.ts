/** Reads what the pipeline needs to know about an input video, and proves that it decodes. */
import { EngineError, VideoInfo } from '../types';
import { ffmpegPath, ffprobePath } from './binaries';
import { runToCompletion } from './process';

interface FfprobeStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  pix_fmt?: string;
  r_frame_rate?: string;
  avg_frame_rate?: string;
  nb_frames?: string;
  duration?: string;
  tags?: Record<string, string>;
  side_data_list?: { rotation?: number | string }[];
}

export interface FfprobeOutput {
  streams?: FfprobeStream[];
  format?: { format_name?: string; duration?: string };
}

/** The probe result plus what the ffmpeg argument builders need to decode the file. */
export interface ProbedVideo extends VideoInfo {
  /** VP9 with alpha only decodes its alpha through libvpx (`-c:v libvpx-vp9` before `-i`) */
  needsLibvpxDecoder: boolean;
}

const DECODE_CHECK_SIZE = 16;

export function buildProbeArgs(path: string): string[] {
  return ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', path];
}

/** Decodes the first video frame into a 16x16 gray thumbnail: proof that the stream decodes. */
export function buildDecodeCheckArgs(path: string, needsLibvpxDecoder: boolean): string[] {
  return [
    '-v', 'error', '-nostdin',
    ...(needsLibvpxDecoder ? ['-c:v', 'libvpx-vp9'] : []),
    '-i', path,
    '-map', '0:v:0', '-frames:v', '1',
    '-vf', `scale=${DECODE_CHECK_SIZE}:${DECODE_CHECK_SIZE}`,
    '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1',
  ];
}

export async function probe(path: string, signal?: AbortSignal): Promise<ProbedVideo> {
  const info = await readVideoInfo(path, signal);
  await proveItDecodes(path, info, signal);
  return info;
}

/** ffprobe only: what the pipeline needs to know, without decoding anything. */
export async function readVideoInfo(path: string, signal?: AbortSignal): Promise<ProbedVideo> {
  let json: FfprobeOutput;
  try {
    const { stdout } = await runToCompletion(ffprobePath(), buildProbeArgs(path), signal);
    json = JSON.parse(stdout.toString('utf8')) as FfprobeOutput;
  } catch (error) {
    throw asInputInvalid(error, 'the file could not be read as a video', signal);
  }
  return parseProbeOutput(json);
}

/** Decodes the first frame; input_invalid when it does not. */
export async function proveItDecodes(path: string, info: ProbedVideo, signal?: AbortSignal): Promise<void> {
  try {
    const { stdout } = await runToCompletion(ffmpegPath(), buildDecodeCheckArgs(path, info.needsLibvpxDecoder), signal);
    if (stdout.length !== DECODE_CHECK_SIZE * DECODE_CHECK_SIZE) throw new Error('no frame decoded');
  } catch (error) {
    throw asInputInvalid(error, 'the video stream does not decode', signal);
  }
}

/** Pure: ffprobe's JSON to VideoInfo. Throws input_invalid when there is no usable video stream. */
export function parseProbeOutput(json: FfprobeOutput): ProbedVideo {
  const video = json.streams?.find((stream) => stream.codec_type === 'video' && !isCoverArt(stream));
  if (!video || !video.width || !video.height) {
    throw new EngineError('input_invalid', 'no video stream found in the input');
  }
  const fps = parseFrameRate(video.avg_frame_rate) ?? parseFrameRate(video.r_frame_rate);
  if (!fps) throw new EngineError('input_invalid', 'the video stream has no frame rate');
  const durationSeconds = parsePositive(json.format?.duration) ?? parsePositive(video.duration) ?? parseTagDuration(video.tags);
  if (!durationSeconds) throw new EngineError('input_invalid', 'the video has no duration');

  const rotation = parseRotation(video);
  const quarterTurn = rotation === 90 || rotation === 270;
  const frameCount = parsePositive(video.nb_frames) ?? Math.max(1, Math.round(durationSeconds * fps));
  const hasAlpha = pixelFormatHasAlpha(video.pix_fmt) || tag(video.tags, 'alpha_mode') === '1';
  const videoCodec = video.codec_name ?? 'unknown';

  return {
    durationSeconds,
    fps,
    width: quarterTurn ? video.height : video.width,
    height: quarterTurn ? video.width : video.height,
    rotation,
    frameCount: Math.round(frameCount),
    hasAudio: json.streams?.some((stream) => stream.codec_type === 'audio') ?? false,
    hasAlpha,
    videoCodec,
    formatName: json.format?.format_name ?? 'unknown',
    needsLibvpxDecoder: hasAlpha && videoCodec === 'vp9',
  };
}

function isCoverArt(stream: FfprobeStream): boolean {
  return ['mjpeg', 'png', 'bmp'].includes(stream.codec_name ?? '') && !stream.avg_frame_rate?.match(/^[1-9]/);
}

/** "30000/1001" -> 29.97; "0/0" and nonsense -> undefined */
export function parseFrameRate(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const [numerator, denominator = '1'] = value.split('/');
  const rate = Number(numerator) / Number(denominator);
  return Number.isFinite(rate) && rate > 0 && rate <= 1000 ? rate : undefined;
}

/**
 * Clockwise degrees the player turns the picture, in {0, 90, 180, 270}: the classic `rotate` tag
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
  const quarterTurns = Math.round(clockwise / 90);
  return (((quarterTurns % 4) + 4) % 4) * 90;
}

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
  const detail = error instanceof Error ? `: ${error.message}` : '';
  return new EngineError('input_invalid', `${message}${detail}`);
}
