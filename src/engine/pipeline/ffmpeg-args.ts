/**
 * Pure builders of every ffmpeg command line the pipeline runs. Nothing here touches a process or
 * the disk, so each argument list is asserted exactly in unit tests.
 * (Slightly over 300 lines: the decoder's and encoder's chains must stay side by side, see below.)
 *
 * Frame alignment: the decoder (frames for the model) and the encoder (which re-reads the original
 * file at full resolution) must see the same frame sequence, or mattes land on the wrong frames.
 * Both therefore start with the same chain, `setpts=PTS-STARTPTS,fps=F`, which turns any input
 * (variable frame rate, odd start times) into the same constant-rate sequence, and the decoder asks
 * for `-vsync passthrough` so that the rawvideo muxer's constant-rate rule duplicates nothing. Both
 * use the same input options (`-t` for previews, the libvpx decoder for VP9 alpha, `-itsoffset` for
 * a picture that starts after the file: input-seek.ts), and rotation is
 * applied by ffmpeg's autorotate on both sides. `alphamerge` in this ffmpeg pairs frames by order,
 * so identical sequences are all it needs.
 *
 * Every input is pinned (media/input-pin.ts): its demuxer named, file and pipe protocols only, and a
 * pixel cap for the user's files. The pins of user files come from the input gate's sniffing.
 */
import { join } from 'node:path';
import { AlphaDecoder, decoderArgs } from '../media/alpha-decoder';
import { InputPin, pinArgs } from '../media/input-pin';
import { fromVideoStart, inputSeekSeconds, previewCut, previewReadSeconds, seekArgs, videoDelayArgs, VideoStart } from './input-seek';
import { OutputFormat, Rgb } from '../types';
import { atAnimationRate, audioEncodeArgs, EncoderPreset, gifRateLimited, GIF_PALETTE_FILTER, GIF_PALETTE_USE_FILTER } from './encoders';
import { foregroundFillsCanvas, Layout, Size } from './geometry';
import { HdrSignal, toneMapChain } from './tone-map';
import { ColourMatrix, colourTagArgs, convertWith, matrixOptions, tagFrames, toMatrix, toWebpMatrix } from './colour-matrix';

export const MATTE_PIPE_FD = 3;
/** the subject's own colour (RGB24, at the mattes' size): the session's prediction or the pipeline's estimate */
export const FOREGROUND_PIPE_FD = 4;
/**
 * Decontamination: where the matte is below this (out of 255), the foreground's colour is the
 * subject's own (predicted or estimated) instead of the source pixel, which there still holds some of the
 * old background. Opaque pixels keep the source's own (sharper, exact) colour.
 */
export const FOREGROUND_COLOUR_BELOW = 250;

/** Frames `start` (inclusive) to `end` (exclusive; undefined: the last) of the constant-rate sequence. */
export interface FrameWindow {
  start: number;
  end?: number;
}

/** What both the decoder and the encoder need to read the source identically. */
export interface SourceSpec {
  inputPath: string;
  /** how the input gate said to open it */
  pin: InputPin;
  /** the index in the file of the video stream to read (the probe's choice) */
  videoStream: number;
  /** VP8 or VP9 with alpha: decoded with libvpx (ffmpeg's own decoders drop the alpha plane) */
  alphaDecoder?: AlphaDecoder;
  /** seconds to read from the start (previews); undefined reads it all */
  durationLimit?: number;
  /** how long the picture read lasts (a preview's seconds, else the video stream's): the sound is cut there */
  pictureSeconds: number;
  /** only these frames of the constant-rate sequence (a chunk of a long job); undefined: all */
  frames?: FrameWindow;
  /** the video stream's first timestamp, when the probe gave it: a window of frames then seeks its input (input-seek.ts) */
  videoStart?: VideoStart;
  fps: number;
  /** display size (after rotation) */
  size: Size;
  /** HDR input: both sides tone-map it to SDR (tone-map.ts) */
  hdr?: HdrSignal;
  /** interlaced input: both sides deinterlace it first (DEINTERLACE) */
  interlaced?: boolean;
  /** pixels that are not square: `size` is the display size, which the encoder scales the source to */
  anamorphic?: boolean;
  /** the YCbCr matrix of its pictures: backgrounds are drawn and outputs tagged with it (colour-matrix.ts); undefined: neither */
  colourMatrix?: ColourMatrix;
  /** full-range YCbCr in a pixel format that does not say so (probe.ts): brought to video range for the encoder */
  fullRange?: boolean;
  /** the picture has an alpha of its own (VP9 or ProRes with alpha, PNG frames...): the output keeps it (buildCompositeFilter) */
  hasAlpha?: boolean;
}

/** The background as the encoder reads it: an image comes with the pin the gate gave it. */
export type CompositeBackground =
  | { type: 'transparent' }
  | { type: 'color'; rgb: Rgb }
  | { type: 'image'; imagePath: string; pin: InputPin; orientation?: number; mayBeTransparent?: boolean };

export interface CompositeSpec {
  source: SourceSpec;
  /** the mattes' size, as the segmentation session returns them */
  matte: Size;
  layout: Layout;
  background: CompositeBackground;
  preset: EncoderPreset;
  /** keep the input's first audio track (only honoured by formats that carry audio) */
  keepAudio: boolean;
  /** the subject's own colour comes on FOREGROUND_PIPE_FD and colours the matte's soft edge */
  decontaminate?: boolean;
}

const COMMON_ARGS = ['-v', 'error', '-nostdin'];

/** Files this pipeline wrote itself, opened pinned like any other input. */
const RAW_PIN: InputPin = { demuxer: 'rawvideo' };
const MATROSKA_PIN: InputPin = { demuxer: 'matroska' };
const PNG_PIN: InputPin = { demuxer: 'png_pipe' };

function seekOf(source: SourceSpec): number | null {
  return source.frames ? inputSeekSeconds(source.frames.start, source.fps, source.videoStart, source.durationLimit) : null;
}

export function buildSourceInputArgs(source: SourceSpec): string[] {
  const seek = seekOf(source);
  return [
    ...pinArgs(source.pin),
    ...decoderArgs(source.alphaDecoder),
    ...(source.durationLimit !== undefined ? ['-t', formatNumber(previewReadSeconds(source.durationLimit, source.videoStart))] : []),
    ...(seek !== null && source.videoStart ? seekArgs(seek, source.videoStart) : videoDelayArgs(source.videoStart)),
    '-i', source.inputPath,
  ];
}

/**
 * The chain both sides apply first to the source's video: a constant-rate sequence from t=0 (cut to
 * `frames` for a chunk, whose first frame is then t=0 again). `seekedFrom`: the input was opened
 * past its start with its timestamps kept (input-seek.ts), so the sequence is numbered from the
 * video's first timestamp and cut on those numbers.
 */
export function sourceChain(fps: number, frames?: FrameWindow, seekedFrom?: VideoStart, previewTrim?: string): string {
  if (frames && seekedFrom) {
    const end = frames.end !== undefined ? `:end_pts=${frames.end}` : '';
    const exactStart = fromVideoStart(seekedFrom);
    return `${exactStart ? `${exactStart},` : ''}fps=${formatNumber(fps)},trim=start_pts=${frames.start}${end},setpts=PTS-STARTPTS`;
  }
  const chain = `setpts=PTS-STARTPTS,fps=${formatNumber(fps)}${previewTrim ? `,${previewTrim}` : ''}`;
  if (!frames) return chain;
  const end = frames.end !== undefined ? `:end_frame=${frames.end}` : '';
  return `${chain},trim=start_frame=${frames.start}${end},setpts=PTS-STARTPTS`;
}

/**
 * Interlaced input's two fields made one frame, before anything else reads it: left as they are,
 * a moving edge is combed (alternate lines from two moments) in the frames the model sees and in
 * the output. yadif, one frame for each frame (the frame count and rate unchanged, so both sides
 * stay aligned), the field order from the frames, only on frames flagged interlaced.
 */
const DEINTERLACE = 'yadif=mode=send_frame:parity=auto:deint=interlaced';

/** The source chain of `source`, seeking or not, deinterlaced first where it is interlaced. */
function chainOf(source: SourceSpec): string {
  const chain = sourceChain(source.fps, source.frames, seekOf(source) !== null ? source.videoStart : undefined, previewCut(source.durationLimit, source.videoStart)) + guessedTimesCap(source);
  return source.interlaced ? `${DEINTERLACE},${chain}` : chain;
}

/**
 * Where the decoder guesses the frames' times (AVI with B-frames states none), its first frame may
 * come a frame after the stream's start, and the constant-rate sequence ran a frame past the
 * picture's end: 101 frames of a 100-frame clip, the last twice, 40 ms longer than its sound. The
 * whole video's sequence is cut at the frames its packets span; a chunk or a preview is cut already.
 */
function guessedTimesCap(source: SourceSpec): string {
  if (!source.videoStart?.guessedTimes || source.frames || source.durationLimit !== undefined) return '';
  return `,trim=end_frame=${Math.max(1, Math.round(source.pictureSeconds * source.fps))}`;
}

/** the source's video stream as ffmpeg names it (`-map` and filter inputs): the stream the probe chose */
function sourceVideo(source: SourceSpec): string {
  return `0:${source.videoStream}`;
}

/** HDR source: the tone-mapping, then a comma (to put before what follows); nothing otherwise */
function toneMapOf(source: SourceSpec): string {
  return source.hdr ? `${toneMapChain(source.hdr)},` : '';
}

/** Decoder: the source as packed RGB frames at the model's input size, on stdout. */
export function buildDecodeArgs(source: SourceSpec, modelInput: Size): string[] {
  // an HDR source is read by its tone-mapping, with its own matrix
  const scaleOptions = [`${modelInput.width}:${modelInput.height}`, 'flags=bilinear', ...(source.hdr ? [] : matrixOptions(source.colourMatrix))];
  return [
    ...COMMON_ARGS,
    ...buildSourceInputArgs(source),
    '-map', sourceVideo(source), '-an', '-sn', '-dn',
    '-vf', `${chainOf(source)},scale=${scaleOptions.join(':')},${toneMapOf(source)}format=rgb24`,
    '-vsync', 'passthrough',
    '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1',
  ];
}

/**
 * A raw input whose every parameter is given is opened without reading ahead to measure it. The
 * encoder opens its inputs in order, and measuring the mattes read some of them before it opened
 * the foreground colour's pipe, which the engine writes beside each matte: above about 100 fps that
 * wait filled the colour's pipe first, and both sides waited on each other for good.
 */
const RAW_PIPE_UNMEASURED = ['-fpsprobesize', '0', '-analyzeduration', '0'];

/** Raw gray mattes at `fps`, from the pipe the engine writes (or from a file). */
export function buildMatteInputArgs(matte: Size, fps: number, path = `pipe:${MATTE_PIPE_FD}`): string[] {
  return [...pinArgs(RAW_PIN), '-pix_fmt', 'gray', '-video_size', `${matte.width}x${matte.height}`, '-framerate', formatNumber(fps), ...RAW_PIPE_UNMEASURED, '-i', path];
}

/**
 * The filter graph that cuts the foreground out and lays it on the canvas. Inputs: the source's video stream,
 * `matteLabel` the mattes, [2:v] the background image if any. Output `[out]`, in the preset's
 * output pixel format.
 */
export function buildCompositeFilter(spec: CompositeSpec, matteLabel = '[1:v]'): string {
  const { layout, preset, background } = spec;
  const foreground = layout.foreground;
  const resizeTo = (from: Size) => resizeToForeground(from, foreground);
  const { source, matte } = withSourceAlpha(spec, `${matteLabel}${resizeTo(spec.matte)}format=gray`);
  const parts = spec.decontaminate
    ? [
        `${source}format=gbrp[sourcecolor]`,
        `[${foregroundInputIndex(spec)}:v]${resizeTo(spec.matte)}format=gbrp[predictedcolor]`,
        `${matte},split=2[fgalpha][edgesource]`,
        `[edgesource]lut=c0='if(lt(val,${FOREGROUND_COLOUR_BELOW}),255,0)',format=gbrp[edge]`,
        `[sourcecolor][predictedcolor][edge]maskedmerge,${backToYuv(spec)}format=${preset.workingPixelFormat}[fgcolor]`,
        '[fgcolor][fgalpha]alphamerge[fg]',
      ]
    : [
        `${source}format=${preset.workingPixelFormat}[fgcolor]`,
        `${matte}[fgalpha]`,
        '[fgcolor][fgalpha]alphamerge[fg]',
      ];
  const rate = preset.format === 'webp' ? atAnimationRate(spec.source.fps) : '';
  const toOutput = `${outputMatrix(spec)}${rate}format=${preset.outputPixelFormat}[out]`;

  if (background.type === 'transparent' && foregroundFillsCanvas(layout)) {
    parts.push(`[fg]${toOutput}`);
  } else if (background.type === 'transparent' && foregroundIsPaddable(layout)) {
    // cheaper than overlaying on a transparent canvas (the usual case: odd sizes grown to even)
    parts.push(`[fg]pad=${layout.canvas.width}:${layout.canvas.height}:0:0:color=black@0,${toOutput}`);
  } else {
    parts.push(backgroundFilter(spec));
    parts.push(`[bg][fg]overlay=x=${foreground.x}:y=${foreground.y}:format=${preset.overlayFormat}:shortest=1,${toOutput}`);
  }
  return parts.join(';');
}

/** what alphaextract reads in this ffmpeg (8 bits); a source in none of them (ProRes 4444's 10 bits) is converted */
const ALPHA_EXTRACT_FORMATS = 'yuva420p|yuva444p|rgba|bgra|argb|abgr';

/**
 * The source at the foreground (a filter's start, as sourceAtForeground) and the mattes (a gray
 * chain), where the source has an alpha of its own: its alpha times the matte, so what the input
 * leaves transparent stays so (alphamerge alone replaced it: a transparent input's hidden pixels,
 * black or whatever its maker left there, came out opaque where the model saw a subject). The two
 * are paired by timestamp, the same constant-rate sequence on both sides.
 */
function withSourceAlpha(spec: CompositeSpec, matte: string): { source: string; matte: string } {
  const source = sourceAtForeground(spec);
  if (!spec.source.hasAlpha) return { source, matte };
  return {
    source: `${source}split=2[sourcepicture][sourcewithalpha];[sourcewithalpha]format=${ALPHA_EXTRACT_FORMATS},alphaextract,format=gray[sourcealpha];[sourcepicture]`,
    // shortest: the output ends with the mattes, as alphamerge ends it (blend would repeat the last matte)
    matte: `${matte}[matteonly];[matteonly][sourcealpha]blend=all_mode=multiply:shortest=1`,
  };
}

/** a scale to the foreground's size, then a comma; nothing where `from` is that size already */
function resizeToForeground(from: Size, foreground: Size): string {
  return sameSize(from, foreground) ? '' : `scale=${foreground.width}:${foreground.height}:flags=bilinear,`;
}

function sameSize(a: Size, b: Size): boolean {
  return a.width === b.width && a.height === b.height;
}

/** the source's video through its chain, tone-mapped and at the foreground's size, then a comma (a filter's start) */
function sourceAtForeground({ source, layout }: Pick<CompositeSpec, 'source' | 'layout'>): string {
  const { foreground } = layout;
  // non-square pixels are scaled to the foreground's square ones even where the display size is the foreground's
  const resized = source.anamorphic || !sameSize(source.size, foreground);
  const convert = resized
    ? `scale=${[`${foreground.width}:${foreground.height}`, 'flags=bilinear', ...matrixOptions(source.colourMatrix)].join(':')},${source.anamorphic ? 'setsar=1,' : ''}`
    : convertWith(source.colourMatrix);
  return `[${sourceVideo(source)}]${chainOf(source)},${toneMapOf(source)}${videoRangeOf(source)}${tagFrames(source.colourMatrix)}${convert}`;
}

/**
 * Full-range YCbCr in a pixel format without a j (10-bit HEVC, VP9 tagged `pc`), then a comma: this
 * ffmpeg converts such frames to yuv420p keeping their values, which every output then reads as
 * video range (mid-grey 192 came out 204-205 in mov, webm and webp, shadows and highlights clipped).
 * The model's RGB is right without it; HDR is tone-mapped to video range already.
 */
function videoRangeOf(source: SourceSpec): string {
  return source.fullRange && !source.hdr ? 'scale=in_range=pc:out_range=tv,' : '';
}

function foregroundIsPaddable(layout: Layout): boolean {
  const { canvas, foreground } = layout;
  return foreground.x === 0 && foreground.y === 0 && foreground.width <= canvas.width && foreground.height <= canvas.height;
}

/** `[bg]`: an endless canvas-sized background at the source's frame rate. */
function backgroundFilter(spec: CompositeSpec): string {
  const { canvas } = spec.layout;
  const { preset, background, source } = spec;
  const size = `${canvas.width}x${canvas.height}`;
  const rate = formatNumber(source.fps);
  switch (background.type) {
    case 'transparent':
      return `color=c=black@0:s=${size}:r=${rate},${rgbFirst(preset.workingPixelFormat, 'rgba')}format=${preset.workingPixelFormat}[bg]`;
    case 'color':
      return `color=c=${hexColor(background.rgb)}:s=${size}:r=${rate},${backgroundMatrix(spec)}format=${preset.opaquePixelFormat}[bg]`;
    case 'image': {
      // turned upright, scaled and cropped once, then repeated; fresh timestamps keep it in step with the video
      const fitted = `[2:v]${UPRIGHT[background.orientation ?? 1]}scale=${canvas.width}:${canvas.height}:force_original_aspect_ratio=increase,crop=${canvas.width}:${canvas.height},setsar=1`;
      const repeated = `${backgroundMatrix(spec)}format=${preset.opaquePixelFormat},loop=loop=-1:size=1,setpts=N/(${rate}*TB)[bg]`;
      if (!background.mayBeTransparent) return `${fitted},${repeated}`;
      // its transparent parts over black, as mp4 shows a transparent background: dropping the alpha showed the colours hidden there
      return `${fitted},format=rgba[bgimage];color=c=black:s=${size}:r=${rate}:d=1[bgunder];[bgunder][bgimage]overlay=format=rgb:shortest=1,${repeated}`;
    }
  }
}

/** the filters that turn a picture stored with EXIF orientation 2..8 upright, then a comma */
const UPRIGHT: Readonly<Record<number, string>> = {
  1: '',
  2: 'hflip,',
  3: 'hflip,vflip,',
  4: 'vflip,',
  5: 'transpose=0,',
  6: 'transpose=1,',
  7: 'transpose=3,',
  8: 'transpose=2,',
};

/** a YCbCr background made in RGB (rgbFirst) and converted with the foreground's matrix (colour-matrix.ts), then a comma; nothing for RGB formats */
function backgroundMatrix({ preset, source }: Pick<CompositeSpec, 'preset' | 'source'>): string {
  return isYuv(preset.opaquePixelFormat) ? `format=rgb24,${toMatrix(source.colourMatrix)}` : '';
}

/**
 * `format=rgb` then a comma, where a generated canvas is to become YCbCr: this ffmpeg's `color`
 * source made in 4:2:0 rounds an odd size down (a 301x201 canvas came out 300x200); made in RGB and
 * converted, it keeps it.
 */
function rgbFirst(pixelFormat: string, rgb: 'rgb24' | 'rgba'): string {
  return isYuv(pixelFormat) ? `format=${rgb},` : '';
}

function isYuv(pixelFormat: string): boolean {
  return pixelFormat.startsWith('yuv');
}

/**
 * The composite's matrix, said again once the background is drawn in (an overlay's frames say what
 * its background's do: nothing), as ProRes writes what the frames say into each frame; WebP's
 * converted to BT.601. Then a comma; nothing for GIF and PNG.
 */
function outputMatrix({ preset, source }: Pick<CompositeSpec, 'preset' | 'source'>): string {
  if (preset.format === 'webp') return toWebpMatrix(source.colourMatrix);
  return TAGGED_FORMATS.includes(preset.format) ? tagFrames(source.colourMatrix) : '';
}

/** the decontaminated foreground's RGB back to YCbCr with the matrix it came with, then a comma; nothing for RGB formats */
function backToYuv({ preset, source }: Pick<CompositeSpec, 'preset' | 'source'>): string {
  return isYuv(preset.workingPixelFormat) ? toMatrix(source.colourMatrix) : '';
}

/**
 * The output options that say the video's matrix, for the formats whose players read it: in the
 * H.264 and VP9 streams themselves; QuickTime's is in the file's `colr` box, which this ffmpeg's
 * mov muxer writes only when asked (ProRes's own was not read back).
 */
function colourTagOf({ preset, source }: Pick<CompositeSpec, 'preset' | 'source'>): string[] {
  const tag = TAGGED_FORMATS.includes(preset.format) ? colourTagArgs(source.colourMatrix) : [];
  return tag.length > 0 && preset.format === 'mov' ? [...tag, '-movflags', '+write_colr'] : tag;
}

const TAGGED_FORMATS: readonly OutputFormat[] = ['mp4', 'mov', 'webm'];

function compositeInputArgs(spec: CompositeSpec, matteInput: string[]): string[] {
  return [
    ...buildSourceInputArgs(spec.source),
    ...matteInput,
    ...(spec.background.type === 'image' ? [...pinArgs(spec.background.pin), '-i', spec.background.imagePath] : []),
    ...(spec.decontaminate ? buildForegroundInputArgs(spec.matte, spec.source.fps) : []),
  ];
}

/** the subject's own colour: raw RGB24 at the mattes' size, after the other inputs */
function buildForegroundInputArgs(size: Size, fps: number): string[] {
  return [...pinArgs(RAW_PIN), '-pix_fmt', 'rgb24', '-video_size', `${size.width}x${size.height}`, '-framerate', formatNumber(fps), ...RAW_PIPE_UNMEASURED, '-i', `pipe:${FOREGROUND_PIPE_FD}`];
}

function foregroundInputIndex(spec: CompositeSpec): number {
  return spec.background.type === 'image' ? 3 : 2;
}

/**
 * The sound's packets wait in the muxer until the picture's first one is written, and the video
 * encoder holds back its look-ahead of frames first: at 1 fps that was half a minute of sound, over
 * ffmpeg's 128 packets, and the job failed ("Too many packets buffered for output stream").
 */
const MUXING_QUEUE_PACKETS = 8192;

function audioOutputArgs(spec: CompositeSpec): string[] {
  if (!spec.keepAudio || !spec.preset.audioArgs) return ['-an'];
  return ['-map', '0:a:0', ...audioEncodeArgs(spec.preset, spec.source.pictureSeconds), '-max_muxing_queue_size', String(MUXING_QUEUE_PACKETS)];
}

/**
 * The streaming encoder for mov, mp4, webp and png_sequence: source + mattes on pipe:3 ->
 * `outputPath` (for png_sequence, a printf pattern such as dir/frame_%05d.png). `mattes` may name
 * a file of raw gray mattes instead of the pipe (the benchmark's floor encodes from one).
 */
export function buildEncodeArgs(spec: CompositeSpec, outputPath: string, mattes = `pipe:${MATTE_PIPE_FD}`): string[] {
  const { preset } = spec;
  return [
    ...COMMON_ARGS,
    ...compositeInputArgs(spec, buildMatteInputArgs(spec.matte, spec.source.fps, mattes)),
    '-filter_complex', buildCompositeFilter(spec),
    '-map', '[out]',
    ...preset.videoArgs,
    ...colourTagOf(spec),
    ...audioOutputArgs(spec),
    ...preset.muxerArgs,
    '-f', preset.muxer, '-y', outputPath,
  ];
}

/** webm's intermediate files: the colour and alpha VP9 streams, the audio, and the two joined. */
export interface WebmParts {
  color: string;
  alpha: string;
  audio: string;
  joined: string;
}

export function webmPartsIn(dir: string, prefix = 'webm'): WebmParts {
  const at = (name: string) => join(dir, `${prefix}-${name}`);
  return { color: at('color.ivf'), alpha: at('alpha.ivf'), audio: at('audio.webm'), joined: at('joined.webm') };
}

/** Splits `[out]` (yuva420p) into `[color]` and `[alpha]`, the alpha as the luma of a yuv420p picture. */
export const WEBM_SPLIT_ALPHA_FILTER =
  '[out]split=2[colorsource][alphasource];[colorsource]format=yuv420p[color];[alphasource]alphaextract,format=yuv420p[alpha]';

/** The outputs of webm's streaming encoder: both VP9 streams as IVF files, the audio apart. */
export function webmStreamOutputArgs(preset: EncoderPreset, parts: WebmParts, audioOfSeconds: number | undefined, colourTag: string[] = []): string[] {
  return [...webmVideoOutputArgs(preset, '[color]', parts.color, colourTag), ...webmVideoOutputArgs(preset, '[alpha]', parts.alpha), ...webmAudioOutputArgs(preset, parts, audioOfSeconds)];
}

/**
 * the filter output `label` as a VP9 stream in an IVF file at `path`, tagged with `colourTag`;
 * frames as they come (IVF is a constant-rate muxer, and ffmpeg's default for it duplicated a frame
 * of dropped-frame footage, which the other stream, or the model's decoder, did not)
 */
function webmVideoOutputArgs(preset: EncoderPreset, label: string, path: string, colourTag: string[] = []): string[] {
  return ['-map', label, ...preset.videoArgs, ...colourTag, '-vsync', 'passthrough', '-f', 'ivf', '-y', path];
}

/** the source's first audio track, for a picture of `audioOfSeconds`, encoded apart into `parts.audio`; nothing where undefined (no audio) */
function webmAudioOutputArgs(preset: EncoderPreset, parts: WebmParts, audioOfSeconds: number | undefined): string[] {
  return audioOfSeconds !== undefined && preset.audioArgs ? ['-map', '0:a:0', ...audioEncodeArgs(preset, audioOfSeconds), '-f', 'webm', '-y', parts.audio] : [];
}

/** the picture's length where the spec keeps its sound (webmAudioOutputArgs) */
function keptAudioSeconds(spec: Pick<CompositeSpec, 'keepAudio' | 'source'>): number | undefined {
  return spec.keepAudio ? spec.source.pictureSeconds : undefined;
}

/**
 * webm, streaming: source + mattes -> the colour and alpha streams (and the audio) in `parts`;
 * output/webm-output.ts joins them afterwards.
 */
export function buildWebmEncodeArgs(spec: CompositeSpec, parts: WebmParts, mattes = `pipe:${MATTE_PIPE_FD}`): string[] {
  return [
    ...COMMON_ARGS,
    ...compositeInputArgs(spec, buildMatteInputArgs(spec.matte, spec.source.fps, mattes)),
    '-filter_complex', `${buildCompositeFilter(spec)};${WEBM_SPLIT_ALPHA_FILTER}`,
    ...webmStreamOutputArgs(spec.preset, parts, keptAudioSeconds(spec), colourTagOf(spec)),
  ];
}

/**
 * A transparent webm whose foreground is the whole canvas (no composition) has a colour
 * stream that is the source alone and an alpha stream that is the mattes alone: each gets an
 * encoder of its own. The colour one starts with the job and runs beside the model instead of
 * waiting for every matte; in one ffmpeg the two VP9 encoders and the filters ran one after the
 * other, about 1.4 of 2 cores busy at 1280x720 (1.9 apart, the same CPU time and the same bytes).
 */
export function encodesWebmApart(spec: Omit<CompositeSpec, 'matte'>): boolean {
  const { preset, background, layout } = spec;
  return preset.format === 'webm' && background.type === 'transparent' && !spec.decontaminate && !spec.source.hasAlpha && foregroundFillsCanvas(layout);
}

/** webm apart (encodesWebmApart): the source -> the colour VP9 stream (and the audio) in `parts` */
export function buildWebmColourArgs(spec: Omit<CompositeSpec, 'matte'>, parts: WebmParts): string[] {
  const { preset } = spec;
  return [
    ...COMMON_ARGS,
    ...buildSourceInputArgs(spec.source),
    '-filter_complex', `${sourceAtForeground(spec)}format=yuv420p[color]`,
    ...webmVideoOutputArgs(preset, '[color]', parts.color, colourTagOf(spec)),
    ...webmAudioOutputArgs(preset, parts, keptAudioSeconds(spec)),
  ];
}

/**
 * webm apart (encodesWebmApart): the mattes on pipe:3 -> the alpha VP9 stream in `parts`. The
 * alpha is the luma of a yuv420p picture with the matte's values as they are: `setrange=tv` keeps
 * the conversion from gray from squeezing 0-255 into 16-235, as alphaextract's output is not.
 */
export function buildWebmAlphaArgs(spec: CompositeSpec, parts: WebmParts, mattes = `pipe:${MATTE_PIPE_FD}`): string[] {
  const { preset, layout } = spec;
  return [
    ...COMMON_ARGS,
    ...buildMatteInputArgs(spec.matte, spec.source.fps, mattes),
    '-filter_complex', `[0:v]${resizeToForeground(spec.matte, layout.foreground)}format=gray,setrange=tv,format=yuv420p[alpha]`,
    ...webmVideoOutputArgs(preset, '[alpha]', parts.alpha),
  ];
}

/** webm with audio, last step: the joined video and the audio (stream copies) into the final file. */
export function buildWebmAudioArgs(parts: WebmParts, outputPath: string): string[] {
  return [
    ...COMMON_ARGS,
    ...pinArgs(MATROSKA_PIN), '-i', parts.joined,
    ...pinArgs(MATROSKA_PIN), '-i', parts.audio,
    '-map', '0:v:0', '-map', '1:a:0',
    '-c', 'copy', '-f', 'webm', '-y', outputPath,
  ];
}

/**
 * GIF, streaming pass: composites as usual but only gathers the clip's palette, and records the
 * mattes losslessly (FFV1, at the model's size: small) so the render pass needs no second inference.
 */
export function buildGifAnalysisArgs(spec: CompositeSpec, palettePath: string, mattesPath: string, mattes = `pipe:${MATTE_PIPE_FD}`): string[] {
  return [
    ...COMMON_ARGS,
    ...compositeInputArgs(spec, buildMatteInputArgs(spec.matte, spec.source.fps, mattes)),
    '-filter_complex', `[1:v]split=2[mattes][recorded];${buildCompositeFilter(spec, '[mattes]')};[out]${GIF_PALETTE_FILTER}[palette]`,
    '-map', '[palette]', '-frames:v', '1', '-f', 'image2', '-y', palettePath,
    '-map', '[recorded]', '-c:v', 'ffv1', '-f', 'matroska', '-y', mattesPath,
  ];
}

/** GIF, render pass: source + recorded mattes + palette -> the GIF (its disposal patched afterwards). */
export function buildGifRenderArgs(spec: CompositeSpec, palettePath: string, mattesPath: string, outputPath: string): string[] {
  const paletteInput = spec.background.type === 'image' ? 3 : 2;
  return [
    ...COMMON_ARGS,
    ...compositeInputArgs(spec, [...pinArgs(MATROSKA_PIN), '-i', mattesPath]),
    ...pinArgs(PNG_PIN), '-i', palettePath,
    '-filter_complex', `${buildCompositeFilter(spec)};${gifRateLimited('[out]', spec.source.fps)}[${paletteInput}:v]${GIF_PALETTE_USE_FILTER}[gif]`,
    '-map', '[gif]',
    ...spec.preset.videoArgs,
    ...spec.preset.muxerArgs,
    '-f', 'gif', '-y', outputPath,
  ];
}

export function hexColor(rgb: Rgb): string {
  return '0x' + rgb.map((channel) => Math.max(0, Math.min(255, Math.round(channel))).toString(16).padStart(2, '0')).join('').toUpperCase();
}

/** Numbers as ffmpeg reads them: no exponent, no trailing noise (29.97002997, not 29.970029970029973). */
export function formatNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toFixed(8)));
}
