/**
 * Pure builders of the ffmpeg command lines that join a long job's chunks into one output. The
 * chunks are this engine's own files (segmentFormatFor), read through ffmpeg's concat demuxer, which
 * is allowed to open nothing but the chunks' container; the source is opened with its input pin.
 */
import { pinArgs, InputPin, ALLOWED_PROTOCOLS } from '../media/input-pin';
import { ColourMatrix, convertWith, toWebpMatrix } from '../pipeline/colour-matrix';
import { atAnimationRate, audioEncodeArgs, EncoderPreset, gifRateLimited, GIF_PALETTE_FILTER, GIF_PALETTE_USE_FILTER } from '../pipeline/encoders';
import { formatNumber } from '../pipeline/ffmpeg-args';
import { previewReadSeconds, videoDelayArgs, VideoStart } from '../pipeline/input-seek';

const COMMON_ARGS = ['-v', 'error', '-nostdin'];

/** The demuxer of each chunk container. */
const CHUNK_DEMUXER: Readonly<Record<string, string>> = { webm: 'matroska', mp4: 'mov', mov: 'mov' };

/**
 * The concat demuxer's list: one `file` line per chunk, quoted as the demuxer reads it, with the
 * chunk's exact duration when known. Without it the demuxer places each chunk after the previous
 * one's container duration, which webm rounds to the millisecond: at 24 fps the chunks would drift
 * a millisecond earlier at every seam.
 */
export function concatList(chunkPaths: readonly string[], durations?: readonly number[]): string {
  return chunkPaths
    .map((chunkPath, i) => `file '${chunkPath.replace(/'/g, "'\\''")}'\n` + (durations?.[i] !== undefined ? `duration ${formatNumber(durations[i])}\n` : ''))
    .join('');
}

/** The chunks, one after the other, as one input (`-safe 0`: the list holds absolute paths we wrote). */
export function concatInputArgs(listPath: string, chunkFormat: string): string[] {
  const demuxer = CHUNK_DEMUXER[chunkFormat];
  if (!demuxer) throw new Error(`chunks in ${chunkFormat} cannot be joined`);
  return ['-protocol_whitelist', ALLOWED_PROTOCOLS, '-format_whitelist', `concat,${demuxer}`, '-f', 'concat', '-safe', '0', '-i', listPath];
}

export interface SourceAudio {
  path: string;
  pin: InputPin;
  /** a preview's duration: the audio is cut like the video was */
  durationLimit?: number;
  /** the video stream's first timestamp: the audio before it is cut, as a single run cuts it (videoDelayArgs) */
  videoStart?: VideoStart;
  /** the joined picture's length: the sound is cut there, as a single run cuts it */
  pictureSeconds: number;
}

/**
 * The source's first audio track, encoded as the single-run path encodes it, into a file of the
 * output's container (joined with the video by stream copy afterwards, as the single run's webm is:
 * the encoder's priming then shifts the audio alone, never the video).
 */
export function buildJoinAudioArgs(audio: SourceAudio, preset: EncoderPreset, audioPath: string): string[] {
  return [
    ...COMMON_ARGS,
    ...pinArgs(audio.pin), ...videoDelayArgs(audio.videoStart), ...(audio.durationLimit !== undefined ? ['-t', formatNumber(previewReadSeconds(audio.durationLimit, audio.videoStart))] : []), '-i', audio.path,
    '-map', '0:a:0', '-vn', ...audioEncodeArgs(preset, audio.pictureSeconds),
    '-f', preset.muxer, '-y', audioPath,
  ];
}

/** webm, mp4 and mov: the chunks' video and the encoded audio (if any), both by stream copy. */
export function buildStreamCopyJoinArgs(listPath: string, preset: EncoderPreset, audioPath: string | undefined, outputPath: string): string[] {
  const audioDemuxer = CHUNK_DEMUXER[preset.format];
  return [
    ...COMMON_ARGS,
    ...concatInputArgs(listPath, preset.format),
    ...(audioPath ? [...pinArgs({ demuxer: audioDemuxer }), '-i', audioPath] : []),
    '-map', '0:v:0',
    ...(audioPath ? ['-map', '1:a:0'] : ['-an']),
    '-c', 'copy',
    ...preset.muxerArgs,
    '-f', preset.muxer, '-y', outputPath,
  ];
}

/** GIF, first pass over the joined chunks (the source's YCbCr, `matrix`): the whole clip's palette. */
export function buildJoinPaletteArgs(listPath: string, palettePath: string, matrix?: ColourMatrix): string[] {
  return [...COMMON_ARGS, ...concatInputArgs(listPath, 'mov'), '-map', '0:v:0', '-vf', `${convertWith(matrix)}format=rgba,${GIF_PALETTE_FILTER}`, '-frames:v', '1', '-f', 'image2', '-y', palettePath];
}

/** GIF, second pass: the joined chunks (of the source's `fps` and `matrix`) through that one palette. */
export function buildJoinGifArgs(listPath: string, palettePath: string, preset: EncoderPreset, outputPath: string, fps: number, matrix?: ColourMatrix): string[] {
  return [
    ...COMMON_ARGS,
    ...concatInputArgs(listPath, 'mov'),
    ...pinArgs({ demuxer: 'png_pipe' }), '-i', palettePath,
    '-filter_complex', `[0:v]${convertWith(matrix)}format=rgba[frames];${gifRateLimited('[frames]', fps)}[1:v]${GIF_PALETTE_USE_FILTER}[gif]`,
    '-map', '[gif]',
    ...preset.videoArgs,
    ...preset.muxerArgs,
    '-f', 'gif', '-y', outputPath,
  ];
}

/**
 * WebP animation or PNG frames (`outputPath` a printf pattern): the joined chunks (of the source's
 * `fps`) encoded once. The chunks hold the source's YCbCr (`matrix`), which a WebP is converted from
 * as in a single run (its decoders read BT.709 as BT.601: a BT.709 video's 200,60,40 came out
 * 187,47,40), at a rate it plays; PNG's RGB is converted from it.
 */
export function buildJoinFramesArgs(listPath: string, preset: EncoderPreset, outputPath: string, fps: number, matrix?: ColourMatrix): string[] {
  const convert = preset.format === 'webp' ? `${toWebpMatrix(matrix)}${atAnimationRate(fps)}` : convertWith(matrix);
  return [
    ...COMMON_ARGS,
    ...concatInputArgs(listPath, 'mov'),
    '-map', '0:v:0',
    '-vf', `${convert}format=${preset.outputPixelFormat}`,
    ...preset.videoArgs,
    ...preset.muxerArgs,
    '-f', preset.muxer, '-y', outputPath,
  ];
}
