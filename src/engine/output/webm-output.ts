/**
 * Finishes a webm whose colour and alpha were encoded as two VP9 streams (see encoders.ts): joins
 * them into one alpha track, then lets ffmpeg copy that track and the audio into the final file,
 * which writes the sizes, duration and cues a player needs to seek.
 */
import { ffmpegPath } from '../media/binaries';
import { runToCompletion } from '../media/process';
import { buildWebmFinalArgs, WebmParts } from '../pipeline/ffmpeg-args';
import { muxWebmWithAlpha } from './webm-alpha-mux';

export async function finishWebm(parts: WebmParts, withAudio: boolean, outputPath: string, signal?: AbortSignal): Promise<void> {
  await muxWebmWithAlpha(parts.color, parts.alpha, parts.joined);
  await runToCompletion(ffmpegPath(), buildWebmFinalArgs(parts, withAudio, outputPath), signal);
}
