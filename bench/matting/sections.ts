/** bench:matting's sections beside quality and speed: `original` against its peer, and edge colour. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { probe } from '../../src/engine/media/input-gate';
import { ModelName } from '../../src/engine/types';
import { runCase } from '../engine/case-protocol';
import { loadModelsModule } from '../engine/models';
import { cpuLine } from '../engine/machine';
import { MEDIA_DIR } from '../engine/options';
import type { PeerCaseInput, PeerCaseOutput } from '../engine/peer-case';
import { mean } from '../engine/stats';
import { Cell, renderTable } from '../engine/table';
import { buildEdgeClip, lightPredictingForeground, measureEdgeColour } from './edge-colour';
import { PEER_RATIO_GOAL, PeerComparison, peerSummary, peerVerdict } from './peer-goal';

/** `original`'s scores on one clip, from the quality table of the same run */
export interface OriginalOnClip {
  clip: string;
  /** the clip's files, without extension (`.mp4`, `.alpha.mkv`) */
  base: string;
  msPerFrame: number;
  iou: number;
  frameIous: number[];
  frames: number;
  /** its ISNet runs over the clip (all, and at the small size) */
  salientRuns?: { keyframes: number; small: number };
}

/** "30 of 60 (17 small)": the frames ISNet ran on, to read a clip's time by */
function salientRunsCell(original: OriginalOnClip): string {
  const runs = original.salientRuns;
  return runs ? `${runs.keyframes} of ${original.frames} (${runs.small} small)` : '-';
}

/**
 * `original` per frame against @imgly/background-removal-node (the same ISNet, its own pipeline
 * frame by frame) on every clip the quality table scored `original` on: the composites and the
 * real footage alike, since a comparison on one clip says little about footage in general. Per
 * clip: seconds per frame, the ratio, and IoU beside it (the goal asks for the ratio at equal or
 * better IoU). `original`'s IoU is judged on the frames the peer is scored on, so both see the
 * same frames; its time is its whole-clip time per frame.
 */
export async function peerSection(originals: OriginalOnClip[], peerFrames: number): Promise<void> {
  console.log(`\n## \`original\` against @imgly/background-removal-node (the peer on ${peerFrames} frames spread over each clip)\n`);
  if (originals.length === 0) {
    console.log('skipped: the quality section did not score `original` on any clip');
    return;
  }
  const rows: Cell[][] = [];
  const compared: PeerComparison[] = [];
  const perFrame: string[] = [];
  let library = '';
  for (const original of originals) {
    try {
      const video = await probe(`${original.base}.mp4`);
      const input: PeerCaseInput = { clipPath: `${original.base}.mp4`, truthPath: `${original.base}.alpha.mkv`, width: video.width, height: video.height, frameCount: video.frameCount, frames: peerFrames };
      const peer = await runCase<PeerCaseOutput>('peer-case', input);
      library = `${peer.library} (${peer.model})`;
      const ratio = (peer.secondsPerFrame * 1000) / original.msPerFrame;
      const ownFrameIous = peer.frameIndices.map((index) => original.frameIous[index]);
      const comparison = { ratio, peerIou: peer.iou, ownIou: mean(ownFrameIous) };
      compared.push(comparison);
      const ious = (values: number[]) => values.map((value) => value.toFixed(3)).join(' ');
      perFrame.push(`${original.clip}: peer ${ious(peer.frameIous)}, original ${ious(ownFrameIous)}`);
      rows.push([original.clip, peer.frameIndices.join(' '), peer.secondsPerFrame * 1000, original.msPerFrame, salientRunsCell(original), ratio, peer.iou, comparison.ownIou, original.iou, peerVerdict(comparison)]);
    } catch (error) {
      rows.push([original.clip, `skipped: the peer library could not run here: ${(error as Error).message.slice(0, 160)}`]);
    }
  }
  console.log(`peer: ${library || 'did not run'}; IoU on the peer's frames; original's whole clip beside it; ${cpuLine()}\n`);
  console.log(renderTable(['clip', 'frames', 'peer ms/frame', 'original ms/frame', 'original ISNet runs', 'x faster', 'peer IoU', 'original IoU', 'original IoU whole clip', `>= ${PEER_RATIO_GOAL}x at equal or better IoU`], rows, [0, 0, 0, 0, 0, 1, 4, 4, 4]));
  if (perFrame.length) console.log(`\nIoU frame by frame:\n${perFrame.map((line) => `- ${line}`).join('\n')}`);
  if (compared.length) console.log(`\n${peerSummary(compared)}`);
}

/** colour error in the soft edge over a colour background, source pixels against RVM's foreground */
export async function edgeColourSection(models: ModelName[], cacheDir: string, frames: number): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-edge-'));
  try {
    const loadModel = await loadModelsModule();
    const clip = buildEdgeClip(MEDIA_DIR, dir, frames);
    const rows: Cell[][] = [];
    for (const name of models.filter((model) => model !== 'pro')) {
      const predicting = name === 'light' ? lightPredictingForeground(cacheDir) : undefined;
      const scores = await measureEdgeColour(await loadModel(name, { cacheDir }), clip, dir, cacheDir, predicting).finally(() => predicting?.close());
      const ways: [string, number | undefined][] = [['source pixels', scores.sourcePixels], ['estimated (used)', scores.estimated], ['RVM foreground', scores.predictedForeground]];
      const best = ways.filter((way): way is [string, number] => way[1] !== undefined).sort((a, b) => a[1] - b[1])[0][0];
      rows.push([name, scores.bandPixels, scores.sourcePixels, scores.estimated, scores.predictedForeground ?? '-', best]);
    }
    console.log(`\n## Edge colour over a colour background (exact-foreground clip, ${clip.frames} frames; mean |error| in the band 0.03 < alpha < 0.97, levels 0..255)\n`);
    console.log(renderTable(['model', 'band pixels', 'source pixels', 'estimated foreground', 'RVM foreground', 'least error'], rows, [0, 0, 2, 2, 2]));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
