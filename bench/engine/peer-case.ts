/**
 * The peer comparison: @imgly/background-removal-node's own pipeline (decode an image, ISNet at
 * 1024, mask out), called frame by frame on frames of a clip, timed and scored against the
 * clip's ground truth. Runs in its own process: the library brings its own onnxruntime-node
 * (1.17), which must not share a process with the engine's.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ffmpegPath } from '../../src/engine/media/binaries';
import { runToCompletion } from '../../src/engine/media/process';
import { binaryIou, meanAbsoluteDifference } from '../../src/engine/quality/metrics';
import { readCaseInput, runAsCase, writeCaseResult } from './case-protocol';
import { truthDecodeArgs } from './quality';
import { mean } from './stats';

export interface PeerCaseInput {
  clipPath: string;
  truthPath: string;
  width: number;
  height: number;
  frameCount: number;
  frames: number;
}

export interface PeerCaseOutput {
  library: string;
  model: string;
  frameIndices: number[];
  firstCallSeconds: number;
  secondsPerFrame: number;
  iou: number;
  /** IoU on each of the frames, in `frameIndices` order */
  frameIous: number[];
  mad: number;
}

const PEER_PACKAGE = '@imgly/background-removal-node';
const PEER_MODEL = 'medium'; // the library's default

interface PeerLibrary {
  segmentForeground(image: Blob, config: { model: string; output: { format: string } }): Promise<Blob>;
}

export function evenlySpaced(count: number, total: number): number[] {
  return Array.from({ length: Math.min(count, total) }, (_, i) => Math.floor((i * total) / Math.min(count, total)));
}

/** the version in the nearest package.json above the library's entry (its exports hide the file) */
async function packageVersion(entry: string): Promise<string> {
  for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = await readFile(join(dir, 'package.json'), 'utf8').catch(() => undefined);
    if (manifest) return (JSON.parse(manifest) as { version: string }).version;
  }
  return 'unknown';
}

async function main(): Promise<void> {
  const input = readCaseInput<PeerCaseInput>();
  const library = (await import(PEER_PACKAGE)) as PeerLibrary;
  const version = await packageVersion(require.resolve(PEER_PACKAGE));
  const indices = evenlySpaced(input.frames, input.frameCount);
  const dir = await mkdtemp(join(tmpdir(), 'bench-peer-'));
  try {
    const select = indices.map((index) => `eq(n\\,${index})`).join('+');
    await runToCompletion(ffmpegPath(), ['-v', 'error', '-nostdin', '-i', input.clipPath, '-vf', `select=${select}`, '-vsync', 'passthrough', join(dir, 'frame_%03d.png')]);
    const pngs = (await readdir(dir)).filter((name) => name.endsWith('.png')).sort();
    const truth = (await runToCompletion(ffmpegPath(), truthDecodeArgs(input.truthPath))).stdout;
    const plane = input.width * input.height;

    const seconds: number[] = [];
    const frameIous: number[] = [];
    let mad = 0;
    for (const [i, name] of pngs.entries()) {
      const image = new Blob([await readFile(join(dir, name))], { type: 'image/png' });
      const started = performance.now();
      const mask = Buffer.from(await (await library.segmentForeground(image, { model: PEER_MODEL, output: { format: 'image/x-rgba8' } })).arrayBuffer());
      seconds.push((performance.now() - started) / 1000);
      const alpha = new Uint8Array(plane);
      for (let p = 0; p < plane; p++) alpha[p] = mask[p * 4 + 3];
      const truthFrame = truth.subarray(indices[i] * plane, (indices[i] + 1) * plane);
      frameIous.push(binaryIou(alpha, truthFrame));
      mad += meanAbsoluteDifference(alpha, truthFrame);
    }
    const steady = seconds.length > 1 ? seconds.slice(1) : seconds;
    const output: PeerCaseOutput = {
      library: `${PEER_PACKAGE}@${version}`,
      model: PEER_MODEL,
      frameIndices: indices,
      firstCallSeconds: seconds[0],
      secondsPerFrame: mean(steady),
      iou: mean(frameIous),
      frameIous,
      mad: (mad / pngs.length) * 1000,
    };
    writeCaseResult(output);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

runAsCase(main);
