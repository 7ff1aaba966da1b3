/**
 * The floors the engine is compared with, measured in the same run on the same clip:
 * - plain: ffmpeg decodes the clip and encodes it to the same format with the same encoder
 *   settings and nothing else (alpha formats get a constant, fully opaque alpha plane);
 * - encoder alone: the engine's own encoder command, fed the mattes the engine produced from a
 *   file instead of the pipe: the same pixels and alpha, minus decode-for-the-model, inference
 *   and the pipes.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ffmpegPath } from '../../src/engine/media/binaries';
import { runToCompletion } from '../../src/engine/media/process';
import { ENCODER_PRESETS, EncoderPreset, GIF_PALETTE_FILTER, GIF_PALETTE_USE_FILTER } from '../../src/engine/pipeline/encoders';
import { buildEncodeArgs, buildGifAnalysisArgs, buildGifRenderArgs, buildSourceInputArgs, CompositeSpec, sourceChain, SourceSpec } from '../../src/engine/pipeline/ffmpeg-args';
import { computeLayout, Size } from '../../src/engine/pipeline/geometry';
import { OutputFormat } from '../../src/engine/types';

/** Pure: decode + encode with the preset's settings and nothing else. */
export function buildPlainFloorArgs(source: SourceSpec, preset: EncoderPreset, keepAudio: boolean, outputPath: string): string[] {
  const decode = `[0:v]${sourceChain(source.fps)},format=${preset.outputPixelFormat}`;
  const filter = preset.format === 'gif' ? `${decode},split=2[frames][stats];[stats]${GIF_PALETTE_FILTER}[palette];[frames][palette]${GIF_PALETTE_USE_FILTER}[out]` : `${decode}[out]`;
  return [
    '-v', 'error', '-nostdin',
    ...buildSourceInputArgs(source),
    '-filter_complex', filter,
    '-map', '[out]',
    ...preset.videoArgs,
    ...(keepAudio && preset.audioArgs ? ['-map', '0:a:0', ...preset.audioArgs] : ['-an']),
    ...preset.muxerArgs,
    '-f', preset.muxer, '-y', outputPath,
  ];
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
  const args = buildPlainFloorArgs(source, ENCODER_PRESETS[format], keepAudio, outputTarget(dir, 'floor-plain', format));
  return timed(() => runToCompletion(ffmpegPath(), args));
}

/** The engine's encoder (for GIF: both passes) fed from a file of recorded mattes. */
export async function measureEncoderAlone(source: SourceSpec, format: OutputFormat, keepAudio: boolean, mattes: { path: string } & Size, dir: string): Promise<number> {
  const spec = compositeSpecFor(source, format, mattes, keepAudio);
  await prepare(dir, 'floor-encoder', format);
  if (format !== 'gif') {
    return timed(() => runToCompletion(ffmpegPath(), buildEncodeArgs(spec, outputTarget(dir, 'floor-encoder', format), mattes.path)));
  }
  const palette = join(dir, 'floor-palette.png');
  const recorded = join(dir, 'floor-mattes.mkv');
  return timed(async () => {
    await runToCompletion(ffmpegPath(), buildGifAnalysisArgs(spec, palette, recorded, mattes.path));
    await runToCompletion(ffmpegPath(), buildGifRenderArgs(spec, palette, recorded, join(dir, 'floor-encoder.gif')));
  });
}
