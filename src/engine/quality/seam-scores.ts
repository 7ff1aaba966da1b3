/**
 * How a chunked job's output looks at its seams compared with the rest of the clip: the matte's IoU
 * with the ground truth and its temporal error (dtSSD) in the frames around each seam, against the
 * same scores over every other frame. A seam that shows (a matte that restarts cold, a jump) raises
 * the seam's dtSSD and lowers its IoU. Used by bench:scale and the chunking tests.
 */
import { ffmpegPath } from '../media/binaries';
import { runToCompletion } from '../media/process';
import { binaryIou, temporalDifferenceError } from './metrics';

export interface SeamScores {
  seamIou: number;
  restIou: number;
  seamDtssd: number;
  restDtssd: number;
  seamFrames: number;
}

/**
 * `seams` are the first frame index of each chunk after the first; the window is the `radius`
 * frames before and after each (10 frames around a seam for radius 5).
 */
export function seamScores(pred: readonly Uint8Array[], truth: readonly Uint8Array[], seams: readonly number[], radius = 5): SeamScores {
  if (pred.length !== truth.length) throw new Error(`${pred.length} predicted mattes for ${truth.length} true ones`);
  const nearSeam = (frame: number) => seams.some((seam) => frame >= seam - radius && frame < seam + radius);
  const seam = { iou: [] as number[], dtssd: [] as number[] };
  const rest = { iou: [] as number[], dtssd: [] as number[] };
  for (let frame = 0; frame < pred.length; frame++) {
    const bucket = nearSeam(frame) ? seam : rest;
    bucket.iou.push(binaryIou(pred[frame], truth[frame]));
    if (frame > 0) bucket.dtssd.push(temporalDifferenceError(pred[frame], pred[frame - 1], truth[frame], truth[frame - 1]));
  }
  return { seamIou: mean(seam.iou), restIou: mean(rest.iou), seamDtssd: mean(seam.dtssd), restDtssd: mean(rest.dtssd), seamFrames: seam.iou.length };
}

function mean(values: number[]): number {
  return values.length === 0 ? NaN : values.reduce((sum, value) => sum + value, 0) / values.length;
}

const SAMPLE_RATE = 8000;

/**
 * The offset of `outputPath`'s audio against `referencePath`'s, in seconds (positive: the output's
 * audio is late), found by cross-correlating the first seconds of both, decoded to mono PCM, within
 * ±`maxSeconds`. The reference should carry a non-periodic sound (noise), or the answer is ambiguous.
 */
export async function audioOffsetSeconds(referencePath: string, outputPath: string, maxSeconds = 0.2, windowSeconds = 3): Promise<number> {
  const [reference, output] = await Promise.all([decodePcm(referencePath, windowSeconds + maxSeconds), decodePcm(outputPath, windowSeconds + maxSeconds)]);
  const maxLag = Math.round(maxSeconds * SAMPLE_RATE);
  const length = Math.min(reference.length, output.length) - maxLag;
  if (length <= SAMPLE_RATE / 10) throw new Error('too little audio to measure an offset');
  let best = { lag: 0, score: -Infinity };
  for (let lag = -maxLag; lag <= maxLag; lag++) {
    let score = 0;
    for (let i = maxLag; i < length; i++) score += reference[i] * output[i + lag];
    if (score > best.score) best = { lag, score };
  }
  return best.lag / SAMPLE_RATE;
}

async function decodePcm(path: string, seconds: number): Promise<Float32Array> {
  const { stdout } = await runToCompletion(ffmpegPath(), ['-v', 'error', '-nostdin', '-i', path, '-t', String(seconds), '-map', '0:a:0', '-ac', '1', '-ar', String(SAMPLE_RATE), '-f', 's16le', 'pipe:1']);
  const samples = new Float32Array(stdout.length / 2);
  for (let i = 0; i < samples.length; i++) samples[i] = stdout.readInt16LE(i * 2) / 32768;
  return samples;
}
