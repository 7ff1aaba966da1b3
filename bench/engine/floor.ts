/**
 * The floors the engine is compared with, measured in the same run on the same clip:
 * - plain: ffmpeg decodes the clip and encodes it to the same format with the same encoder
 *   settings and nothing else (alpha formats get a constant, fully opaque alpha plane);
 * - encoder alone: the engine's own encoder commands, fed the mattes the engine produced from a
 *   file instead of the pipe: the same pixels and alpha, minus decode-for-the-model, inference
 *   and the pipes. A transparent webm runs its colour and alpha encoders at once, as the engine
 *   does (encodesWebmApart); one encoder would make the engine look faster than its own encoder.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ffmpegPath } from '../../src/engine/media/binaries';
import { runToCompletion } from '../../src/engine/media/process';
import { audioEncodeArgs, ENCODER_PRESETS, EncoderPreset, GIF_PALETTE_FILTER, GIF_PALETTE_USE_FILTER } from '../../src/engine/pipeline/encoders';
import { finishWebm } from '../../src/engine/output/webm-output';
import {
  buildEncodeArgs,
  buildGifAnalysisArgs,
  buildGifRenderArgs,
  buildSourceInputArgs,
  buildWebmAlphaArgs,
  buildWebmColourArgs,
  buildWebmEncodeArgs,
  CompositeSpec,
  encodesWebmApart,
  sourceChain,
  SourceSpec,
  WEBM_SPLIT_ALPHA_FILTER,
  webmPartsIn,
  WebmParts,
  webmStreamOutputArgs,
} from '../../src/engine/pipeline/ffmpeg-args';
import { computeLayout, Size } from '../../src/engine/pipeline/geometry';
import { OutputFormat } from '../../src/engine/types';

/** Pure: decode + encode with the preset's settings and nothing else (webm: see buildPlainWebmFloorArgs). */
export function buildPlainFloorArgs(source: SourceSpec, preset: EncoderPreset, keepAudio: boolean, outputPath: string): string[] {
  const decode = plainDecodeFilter(source, preset);
  const filter = preset.format === 'gif' ? `${decode},split=2[frames][stats];[stats]${GIF_PALETTE_FILTER}[palette];[frames][palette]${GIF_PALETTE_USE_FILTER}[out]` : `${decode}[out]`;
  return [
    ...plainInputArgs(source),
    '-filter_complex', filter,
    '-map', '[out]',
    ...preset.videoArgs,
    ...(keepAudio && preset.audioArgs ? ['-map', '0:a:0', ...audioEncodeArgs(preset, source.pictureSeconds)] : ['-an']),
    ...preset.muxerArgs,
    '-f', preset.muxer, '-y', outputPath,
  ];
}

/** Pure: webm's floor writes its colour and alpha streams to `parts`, joined afterwards as the engine does. */
export function buildPlainWebmFloorArgs(source: SourceSpec, keepAudio: boolean, parts: WebmParts): string[] {
  const preset = ENCODER_PRESETS.webm;
  return [...plainInputArgs(source), '-filter_complex', `${plainDecodeFilter(source, preset)}[out];${WEBM_SPLIT_ALPHA_FILTER}`, ...webmStreamOutputArgs(preset, parts, keepAudio ? source.pictureSeconds : undefined)];
}

function plainInputArgs(source: SourceSpec): string[] {
  return ['-v', 'error', '-nostdin', ...buildSourceInputArgs(source)];
}

function plainDecodeFilter(source: SourceSpec, preset: EncoderPreset): string {
  return `[0:v]${sourceChain(source.fps)},format=${preset.outputPixelFormat}`;
}

export function compositeSpecFor(source: SourceSpec, format: OutputFormat, matte: Size, keepAudio: boolean): CompositeSpec {
  const preset = ENCODER_PRESETS[format];
  return { source, matte, layout: computeLayout(source.size, undefined, preset.evenDimensions), background: { type: 'transparent' }, preset, keepAudio };
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

function outputTarget(dir: string, name: string, format: OutputFormat): string {
  return format === 'png_sequence' ? join(dir, name, 'frame_%05d.png') : join(dir, `${name}.${format}`);
}

async function prepare(dir: string, name: string, format: OutputFormat): Promise<void> {
  if (format === 'png_sequence') {
    await rm(join(dir, name), { recursive: true, force: true });
    await mkdir(join(dir, name));
  }
}

export async function measurePlainFloor(source: SourceSpec, format: OutputFormat, keepAudio: boolean, dir: string): Promise<number> {
  await prepare(dir, 'floor-plain', format);
  const output = outputTarget(dir, 'floor-plain', format);
  if (format === 'webm') {
    const parts = webmPartsIn(dir, 'floor-plain');
    return timed(async () => {
      await runToCompletion(ffmpegPath(), buildPlainWebmFloorArgs(source, keepAudio, parts));
      await finishWebm(parts, keepAudio, output);
    });
  }
  return timed(() => runToCompletion(ffmpegPath(), buildPlainFloorArgs(source, ENCODER_PRESETS[format], keepAudio, output)));
}

/** The engine's encoder (for GIF: both passes) fed from a file of recorded mattes. */
export async function measureEncoderAlone(source: SourceSpec, format: OutputFormat, keepAudio: boolean, mattes: { path: string } & Size, dir: string): Promise<number> {
  const spec = compositeSpecFor(source, format, mattes, keepAudio);
  await prepare(dir, 'floor-encoder', format);
  const output = outputTarget(dir, 'floor-encoder', format);
  if (format === 'webm') {
    const parts = webmPartsIn(dir, 'floor-encoder');
    const encode = encodesWebmApart(spec)
      ? () => Promise.all([runToCompletion(ffmpegPath(), buildWebmColourArgs(spec, parts)), runToCompletion(ffmpegPath(), buildWebmAlphaArgs(spec, parts, mattes.path))])
      : () => runToCompletion(ffmpegPath(), buildWebmEncodeArgs(spec, parts, mattes.path));
    return timed(async () => {
      await encode();
      await finishWebm(parts, keepAudio, output);
    });
  }
  if (format !== 'gif') return timed(() => runToCompletion(ffmpegPath(), buildEncodeArgs(spec, output, mattes.path)));
  const palette = join(dir, 'floor-palette.png');
  const recorded = join(dir, 'floor-mattes.mkv');
  return timed(async () => {
    await runToCompletion(ffmpegPath(), buildGifAnalysisArgs(spec, palette, recorded, mattes.path));
    await runToCompletion(ffmpegPath(), buildGifRenderArgs(spec, palette, recorded, join(dir, 'floor-encoder.gif')));
  });
}
