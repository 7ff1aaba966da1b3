/**
 * Encoder presets, one per output format, chosen for speed on small CPU boxes with good quality.
 * Speeds are for 640x360 on 2 cores of the reference machine, encoder alone, real alpha content.
 *
 * | format       | video                                                     | audio           | ~fps |
 * |--------------|-----------------------------------------------------------|-----------------|------|
 * | webm         | libvpx-vp9, -deadline realtime -cpu-used 8, -row-mt 1,    | libopus 128k    | 250  |
 * |              | constant quality -crf 32 -b:v 0, no alt-ref, key frame    |                 |      |
 * |              | every 125 frames; alpha as a second VP9 stream (below)    |                 |      |
 * | mov          | prores_ks profile 4444 yuva444p10le, 8-bit alpha, apl0    | pcm_s16le       |  50  |
 * | mp4          | libx264 yuv420p -preset veryfast -crf 20, +faststart      | aac 160k        | 400  |
 * | gif          | palettegen (whole clip, reserved transparent entry) then  | -               |      |
 * |              | paletteuse bayer dither; full frames, disposal patched    |                 |      |
 * | webp         | libwebp_anim yuva420p, lossy q80, compression_level 1,    | -               | 150  |
 * |              | loop 0                                                    |                 |      |
 * | png_sequence | png rgba, zlib level 1, frames stored in the zip as-is    | -               |      |
 *
 * The prores mov keeps PCM audio: ProRes is an editing intermediate and editors expect PCM.
 *
 * webm's alpha: this ffmpeg's yuva420p VP9 encoding runs the alpha plane's encoder at libvpx's
 * slowest settings (it is handed none of the options above: ~15 fps at 640x360 with real mattes),
 * so the colour and the alpha are encoded as two ordinary VP9 streams with the same options and
 * joined into one alpha track by output/webm-alpha-mux.ts: each in an ffmpeg of its own where the
 * colour is the source alone (ffmpeg-args.ts, encodesWebmApart), both in one otherwise. The fixed key frame interval
 * (-g = -keyint_min) puts both streams' key frames on the same frames, so the file seeks cleanly.
 *
 * `-lag-in-frames 0`: in realtime mode with no alt-ref libvpx does not use its look-ahead, and the
 * output is byte for byte the same without it (portrait-pan, 100 frames), but the default 25-frame
 * queue is still allocated in each stream's encoder. Dropping it measured 0.28 -> 0.17 s to start
 * an encoder, 50 MB less peak memory and 2-4 ms less CPU a frame for `light` end to end.
 */
import { OutputFormat } from '../types';

export interface EncoderPreset {
  format: OutputFormat;
  /** pixel format of the foreground (and a transparent canvas) while compositing */
  workingPixelFormat: 'yuva420p' | 'yuva444p' | 'rgba';
  /** the same family without alpha, for opaque backgrounds */
  opaquePixelFormat: 'yuv420p' | 'yuv444p' | 'rgb24';
  /** the overlay filter's internal format for that family */
  overlayFormat: 'yuv420' | 'yuv444' | 'rgb';
  /** what the encoder is handed */
  outputPixelFormat: string;
  hasAlpha: boolean;
  /** the encoder rejects odd widths/heights */
  evenDimensions: boolean;
  /** ffmpeg muxer name (always explicit: outputs are written under temporary names) */
  muxer: string;
  videoArgs: readonly string[];
  /** the audio encoder's options (audioEncodeArgs adds the filters); undefined: the format carries no audio */
  audioArgs?: readonly string[];
  /** filters after the sound is placed and cut (audioEncodeArgs): what the encoder needs of it */
  audioFilter?: string;
  muxerArgs: readonly string[];
}

/**
 * Audio that starts after the picture keeps its delay as silence from the output's start. webm's
 * audio, and a long job's, is encoded into a file apart and joined by stream copy, and that copy
 * moved a late start to 0 (sound half a second early where the track started half a second in).
 */
const AUDIO_FROM_VIDEO_START = 'aresample=async=1:first_pts=0';

/**
 * The preset's audio options for a picture of `pictureSeconds`: the sound placed from the picture's
 * start and cut at its end. A track longer than the video made the output that much longer, its
 * sound over the last frame (a 0.5 s clip with 3 s of sound came out 3 s long, billed for 0.5).
 */
export function audioEncodeArgs(preset: EncoderPreset, pictureSeconds: number): string[] {
  if (!preset.audioArgs) throw new Error(`${preset.format} carries no audio`);
  const filters = [AUDIO_FROM_VIDEO_START, `atrim=end=${Number(pictureSeconds.toFixed(6))}`, ...(preset.audioFilter ? [preset.audioFilter] : [])];
  return [...preset.audioArgs, '-af', filters.join(',')];
}

export const ENCODER_PRESETS: Readonly<Record<OutputFormat, EncoderPreset>> = {
  webm: {
    format: 'webm',
    workingPixelFormat: 'yuva420p',
    opaquePixelFormat: 'yuv420p',
    overlayFormat: 'yuv420',
    outputPixelFormat: 'yuva420p',
    hasAlpha: true,
    evenDimensions: false,
    muxer: 'webm',
    videoArgs: [
      '-c:v', 'libvpx-vp9', '-pix_fmt', 'yuv420p',
      '-deadline', 'realtime', '-cpu-used', '8', '-row-mt', '1',
      '-crf', '32', '-b:v', '0', '-auto-alt-ref', '0',
      '-g', '125', '-keyint_min', '125', '-lag-in-frames', '0',
    ],
    // Opus takes the Vorbis channel layouts alone: 5.1(side) (AC-3, DTS), 4.0, 2.1 or octagonal
    // failed the job; each is converted to the nearest it takes (5.1(side) to 5.1, octagonal to 7.1)
    audioArgs: ['-c:a', 'libopus', '-b:a', '128k'],
    audioFilter: 'aformat=channel_layouts=mono|stereo|3.0|quad|5.0|5.1|6.1|7.1',
    muxerArgs: [],
  },
  mov: {
    format: 'mov',
    workingPixelFormat: 'yuva444p',
    opaquePixelFormat: 'yuv444p',
    overlayFormat: 'yuv444',
    outputPixelFormat: 'yuva444p10le',
    hasAlpha: true,
    evenDimensions: false,
    muxer: 'mov',
    videoArgs: ['-c:v', 'prores_ks', '-profile:v', '4444', '-pix_fmt', 'yuva444p10le', '-alpha_bits', '8', '-vendor', 'apl0'],
    audioArgs: ['-c:a', 'pcm_s16le'],
    muxerArgs: [],
  },
  mp4: {
    format: 'mp4',
    workingPixelFormat: 'yuva420p',
    opaquePixelFormat: 'yuv420p',
    overlayFormat: 'yuv420',
    outputPixelFormat: 'yuv420p',
    hasAlpha: false,
    evenDimensions: true,
    muxer: 'mp4',
    videoArgs: ['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-preset', 'veryfast', '-crf', '20'],
    audioArgs: ['-c:a', 'aac', '-b:a', '160k'],
    muxerArgs: ['-movflags', '+faststart'],
  },
  gif: {
    format: 'gif',
    workingPixelFormat: 'rgba',
    opaquePixelFormat: 'rgb24',
    overlayFormat: 'rgb',
    outputPixelFormat: 'rgba',
    hasAlpha: true,
    evenDimensions: false,
    muxer: 'gif',
    // Every frame whole: with disposal 2 (set afterwards), offsetting or transdiff would blank
    // the pixels they skip.
    videoArgs: ['-c:v', 'gif', '-gifflags', '0'],
    muxerArgs: ['-loop', '0'],
  },
  webp: {
    format: 'webp',
    workingPixelFormat: 'yuva420p',
    opaquePixelFormat: 'yuv420p',
    overlayFormat: 'yuv420',
    outputPixelFormat: 'yuva420p',
    hasAlpha: true,
    evenDimensions: false,
    muxer: 'webp',
    videoArgs: ['-c:v', 'libwebp_anim', '-pix_fmt', 'yuva420p', '-lossless', '0', '-quality', '80', '-compression_level', '1'],
    muxerArgs: ['-loop', '0'],
  },
  png_sequence: {
    format: 'png_sequence',
    workingPixelFormat: 'rgba',
    opaquePixelFormat: 'rgb24',
    overlayFormat: 'rgb',
    outputPixelFormat: 'rgba',
    hasAlpha: true,
    evenDimensions: false,
    muxer: 'image2',
    videoArgs: ['-c:v', 'png', '-pix_fmt', 'rgba', '-compression_level', '1'],
    muxerArgs: ['-start_number', '0'],
  },
};

/** GIF palette: one per clip, with a slot kept for "transparent". */
export const GIF_PALETTE_FILTER = 'palettegen=reserve_transparent=1:stats_mode=full';
/** Ordered dithering: fast, and it does not crawl between frames like error diffusion does. */
export const GIF_PALETTE_USE_FILTER = 'paletteuse=dither=bayer:bayer_scale=3';

/**
 * The fastest an animated image plays as written. A GIF's delays are whole hundredths of a second,
 * and browsers play a delay of 1 as 10 (a 2 s clip at 120 fps was written as 1.2 s and would play
 * for 12); they play a WebP frame of 10 ms or less for 100 ms (120 fps: 8-9 ms frames).
 */
export const ANIMATION_MAX_FPS = 50;

/** `fps` bringing frames of `fps` to ANIMATION_MAX_FPS, then a comma; nothing at or under it */
export function atAnimationRate(fps: number): string {
  return fps > ANIMATION_MAX_FPS ? `fps=${ANIMATION_MAX_FPS},` : '';
}

/** The frames at `label` (of `fps`) at a rate a GIF holds: the label to read them at, after the filters that bring them to at most ANIMATION_MAX_FPS. */
export function gifRateLimited(label: string, fps: number): string {
  return fps > ANIMATION_MAX_FPS ? `${label}fps=${ANIMATION_MAX_FPS}[gifrate];[gifrate]` : label;
}
