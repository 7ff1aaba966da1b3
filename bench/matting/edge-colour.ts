/**
 * Colour in the matte's soft edge, measured against an exact answer. portrait-pan's own soft edge
 * mixes the person with the street, so its true foreground colour there is unknown. This builds a
 * clip whose foreground colour is known everywhere: portrait-pan's exact alpha, made binary (>= 250), eroded
 * 8 px and blurred (sigma 2), so every pixel it covers lies where portrait-pan's person is fully
 * opaque; those pixels (the true foreground F) are laid over a saturated green G:
 * C = a F + (1 - a) G. Over a new colour K the true result is T = a F + (1 - a) K, and the edge error
 * is the mean |output - T| (RGB, 0..255) over the pixels with 0.03 < a < 0.97.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { runEngine } from '../../src/engine/engine';
import { ffmpegPath } from '../../src/engine/media/binaries';
import { pipelinedGeometryFor, RVM_PROFILES } from '../../src/engine/models/rvm/rvm-geometry';
import { RvmMatter } from '../../src/engine/models/rvm/rvm-matter';
import { RvmSession } from '../../src/engine/models/rvm/rvm-session';
import { Rgb, SegmentationModel, SegmentationSession } from '../../src/engine/types';

/** read once: a global looked up in a per-pixel loop is slow under Jest (docs/testing.md) */
const { abs, floor, min, round } = Math;

export const EDGE_GREEN: Rgb = [20, 200, 60];
export const EDGE_TARGET: Rgb = [40, 60, 220];
const FPS = 25;

export interface EdgeClip {
  path: string;
  width: number;
  height: number;
  frames: number;
  /** per frame: the exact alpha (gray) and the true composite over EDGE_TARGET (RGB24) */
  alpha: Uint8Array[];
  truth: Uint8Array[];
}

function raw(args: string[]): Buffer {
  return execFileSync(ffmpegPath(), ['-v', 'error', ...args], { maxBuffer: 1 << 30 });
}

function split(bytes: Buffer, size: number, frames: number): Uint8Array[] {
  return Array.from({ length: min(frames, floor(bytes.length / size)) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));
}

/** writes the clip (H.264, CRF 10) under `dir`; `mediaDir` holds portrait-pan and its alpha */
export function buildEdgeClip(mediaDir: string, dir: string, frames: number): EdgeClip {
  const width = 640;
  const height = 360;
  const pixels = width * height;
  const erode = Array.from({ length: 8 }, () => 'erosion').join(',');
  const alpha = split(raw(['-i', join(mediaDir, 'portrait-pan.alpha.mkv'), '-frames:v', String(frames), '-vf', `format=gray,lut=c0='if(gte(val,250),255,0)',${erode},gblur=sigma=2`, '-f', 'rawvideo', '-pix_fmt', 'gray', '-']), pixels, frames);
  const colour = split(raw(['-i', join(mediaDir, 'portrait-pan.mp4'), '-frames:v', String(frames), '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-']), pixels * 3, frames);
  const mix = (a: Uint8Array, f: Uint8Array, background: Rgb) => {
    const out = new Uint8Array(pixels * 3);
    for (let p = 0; p < pixels; p++) {
      const w = a[p] / 255;
      for (let c = 0; c < 3; c++) out[3 * p + c] = round(w * f[3 * p + c] + (1 - w) * background[c]);
    }
    return out;
  };
  const composite = Buffer.concat(alpha.map((a, i) => mix(a, colour[i], EDGE_GREEN)));
  const path = join(dir, 'edge-clip.mp4');
  execFileSync(ffmpegPath(), ['-v', 'error', '-y', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-video_size', `${width}x${height}`, '-framerate', String(FPS), '-i', '-', '-c:v', 'libx264', '-crf', '10', '-pix_fmt', 'yuv444p', path], { input: composite });
  return { path, width, height, frames: alpha.length, alpha, truth: alpha.map((a, i) => mix(a, colour[i], EDGE_TARGET)) };
}

/**
 * RVM as `light` runs it (its geometry and precision) with mattes that carry its predicted
 * foreground colour, composited in the soft edge: it keeps the `fgr` output that the engine's models
 * leave out (RvmGeometry.foreground). The clip holds one person, so `light`'s choice of the main
 * people changes nothing here. `close` stops its inference threads.
 */
export function lightPredictingForeground(cacheDir: string): SegmentationModel & { close(): Promise<void> } {
  const matters: Promise<RvmMatter>[] = [];
  const rvm: SegmentationModel = {
    name: 'light',
    async createSession(options) {
      const geometry = { ...pipelinedGeometryFor(options.width, options.height, RVM_PROFILES.light), foreground: true };
      const matter = RvmMatter.open(geometry, cacheDir);
      matters.push(matter);
      return new RvmSession(await matter);
    },
  };
  const close = async () => {
    await Promise.all(matters.map(async (matter) => (await matter).close()));
  };
  return Object.assign(withPredictedForeground(rvm), { close });
}

/** the same sessions, their predicted foreground composited in the matte's soft edge */
function withPredictedForeground(model: SegmentationModel): SegmentationModel {
  return {
    name: model.name,
    async createSession(options) {
      const session = await model.createSession(options);
      const predicting: SegmentationSession = {
        get inputWidth() { return session.inputWidth; },
        get inputHeight() { return session.inputHeight; },
        get matteSize() { return session.matteSize; },
        get notes() { return session.notes; },
        predictsForeground: true,
        segment: (frame) => session.segment(frame),
        close: () => session.close(),
      };
      return predicting;
    },
  };
}

export interface EdgeColourScores {
  /** mean |output - truth| over the edge band, RGB levels 0..255: the source's own pixels there */
  sourcePixels: number;
  /** the engine's default: the foreground colour estimated from the frame and the matte */
  estimated: number;
  /** the session's own predicted colour (RVM's "fgr"); undefined for sessions that give none */
  predictedForeground?: number;
  bandPixels: number;
}

/**
 * Runs the engine over EDGE_TARGET with each way of colouring the soft edge and scores the band:
 * the source's pixels, the estimated foreground (the default), and, given `predicting` (the same
 * model with its own predicted colour, lightPredictingForeground), that prediction.
 */
export async function measureEdgeColour(model: SegmentationModel, clip: EdgeClip, dir: string, cacheDir: string, predicting?: SegmentationModel): Promise<EdgeColourScores> {
  const run = async (variant: SegmentationModel, name: string, edgeColour: 'estimated' | 'source') => {
    const outputPath = join(dir, `edge-${name}.mov`);
    await runEngine(
      { inputPath: clip.path, outputPath, model: model.name, outputFormat: 'mov', background: { type: 'color', rgb: EDGE_TARGET }, previewDuration: clip.frames / FPS },
      { loadModel: async () => variant, cacheDir, workDir: dir, edgeColour },
    );
    return split(raw(['-i', outputPath, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-']), clip.width * clip.height * 3, clip.frames);
  };
  const score = (frames: Uint8Array[]) => {
    let sum = 0;
    let count = 0;
    frames.forEach((frame, i) => {
      const alpha = clip.alpha[i];
      for (let p = 0; p < alpha.length; p++) {
        if (alpha[p] <= 8 || alpha[p] >= 247) continue;
        for (let c = 0; c < 3; c++) sum += abs(frame[3 * p + c] - clip.truth[i][3 * p + c]);
        count++;
      }
    });
    return { error: sum / (3 * count), count };
  };
  const source = score(await run(model, 'source', 'source'));
  const estimated = score(await run(model, 'estimated', 'estimated'));
  const predicted = predicting && score(await run(predicting, 'predicted', 'estimated')).error;
  return { sourcePixels: source.error, estimated: estimated.error, predictedForeground: predicted, bandPixels: source.count };
}
