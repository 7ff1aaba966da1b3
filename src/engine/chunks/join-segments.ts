/**
 * Joins the chunks of a long job (each an engine run with a `segment`) into the job's one output:
 * webm, mp4 and mov by stream copy of the chunks' video; GIF, WebP and PNG frames encoded once from
 * the chunks (see segmentFormatFor). The audio is taken once from the source, from its start, as a
 * single run takes it, so it stays in sync whatever the chunk boundaries were.
 */
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ffmpegPath } from '../media/binaries';
import { admitVideo } from '../media/input-gate';
import { MediaLimits } from '../media/limits';
import { runToCompletion } from '../media/process';
import { setGifFileDisposal } from '../output/gif-disposal';
import { partialOutputPath } from '../output/partial-output';
import { zipFrames } from '../output/zip-frames';
import { ENCODER_PRESETS } from '../pipeline/encoders';
import { EngineError, OutputFormat } from '../types';
import { buildJoinAudioArgs, buildJoinFramesArgs, buildJoinGifArgs, buildJoinPaletteArgs, buildStreamCopyJoinArgs, concatList, SourceAudio } from './join-args';
import { segmentFormatFor } from './segment';

export interface JoinRequest {
  /** the job's input, for its audio */
  sourcePath: string;
  /** the chunks' outputs, in order */
  chunkPaths: readonly string[];
  /** each chunk's exact duration (frames / fps), as its engine run reported it */
  chunkDurations?: readonly number[];
  outputFormat: OutputFormat;
  outputPath: string;
  limits?: MediaLimits;
  /** seconds: the job was a preview of the first N seconds */
  previewDuration?: number;
  /** parent of the scratch directory; default: the OS temp dir */
  workDir?: string;
}

export async function joinSegments(request: JoinRequest, signal?: AbortSignal): Promise<void> {
  if (request.chunkPaths.length === 0) throw new EngineError('output_failed', 'there are no chunks to join');
  const source = await admitVideo(request.sourcePath, request.limits, signal);
  const preset = ENCODER_PRESETS[request.outputFormat];
  const scratch = await mkdtemp(join(request.workDir ?? tmpdir(), 'backdrop-join-'));
  const partialPath = partialOutputPath(request.outputPath);
  try {
    const listPath = join(scratch, 'chunks.txt');
    await writeFile(listPath, concatList(request.chunkPaths, request.chunkDurations));
    const preview = request.previewDuration !== undefined && request.previewDuration < source.durationSeconds ? request.previewDuration : undefined;
    const audio: SourceAudio | undefined = source.hasAudio && preset.audioArgs ? { path: request.sourcePath, pin: source.pin, durationLimit: preview, videoStart: source.videoStart, pictureSeconds: joinedSeconds(request, preview ?? source.packetSpanSeconds ?? source.durationSeconds) } : undefined;
    const run = (args: string[]) => runToCompletion(ffmpegPath(), args, signal);
    switch (request.outputFormat) {
      case 'gif': {
        const palettePath = join(scratch, 'palette.png');
        await run(buildJoinPaletteArgs(listPath, palettePath, source.colourMatrix));
        await run(buildJoinGifArgs(listPath, palettePath, preset, partialPath, source.fps, source.colourMatrix));
        await setGifFileDisposal(partialPath);
        break;
      }
      case 'png_sequence': {
        const framesDir = join(scratch, 'frames');
        await mkdir(framesDir);
        await run(buildJoinFramesArgs(listPath, preset, join(framesDir, 'frame_%05d.png'), source.fps, source.colourMatrix));
        await zipFrames(framesDir, partialPath);
        break;
      }
      case 'webp':
        await run(buildJoinFramesArgs(listPath, preset, partialPath, source.fps, source.colourMatrix));
        break;
      default:
        if (segmentFormatFor(request.outputFormat) !== request.outputFormat) throw new Error(`no join for ${request.outputFormat}`);
        if (audio) await run(buildJoinAudioArgs(audio, preset, join(scratch, `audio.${preset.format}`)));
        await run(buildStreamCopyJoinArgs(listPath, preset, audio && join(scratch, `audio.${preset.format}`), partialPath));
    }
    await mkdir(dirname(request.outputPath), { recursive: true });
    await rename(partialPath, request.outputPath);
  } catch (error) {
    await rm(partialPath, { force: true });
    if (signal?.aborted) throw new EngineError('canceled', 'processing was canceled');
    if (error instanceof EngineError) throw error;
    throw new EngineError('output_failed', `joining the chunks failed: ${(error as Error).message}`);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** the joined picture's length: its chunks' exact durations summed where all are known, else `probed` */
function joinedSeconds(request: JoinRequest, probed: number): number {
  const durations = request.chunkDurations;
  return durations?.length === request.chunkPaths.length ? durations.reduce((sum, seconds) => sum + seconds, 0) : probed;
}
