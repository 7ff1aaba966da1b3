/** bench:matting's sections beside quality and speed: `original` against its peer, and edge colour. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { probe } from '../../src/engine/media/input-gate';
import { ModelName } from '../../src/engine/types';
import { runCase } from '../engine/case-protocol';
import { loadModelsModule } from '../engine/models';
import { MEDIA_DIR } from '../engine/options';
import type { PeerCaseInput, PeerCaseOutput } from '../engine/peer-case';
import { mean } from '../engine/stats';
import { Cell, renderTable } from '../engine/table';
import { buildEdgeClip, measureEdgeColour } from './edge-colour';

export const PEER_RATIO_GOAL = 20;

/**
 * `original` per frame against @imgly/background-removal-node (the same ISNet, its own pipeline
 * frame by frame) on portrait-pan: seconds per frame, the ratio, and IoU beside it (the goal asks
 * for the ratio at equal or better IoU). `original` comes from the quality table of the same run
 * (whole clip); its IoU is judged on the frames the peer is scored on, so both see the same frames.
 */
export async function peerSection(original: { msPerFrame: number; iou: number; frameIous: number[] } | undefined, peerFrames: number): Promise<void> {
  const clipPath = join(MEDIA_DIR, 'portrait-pan.mp4');
  const truthPath = join(MEDIA_DIR, 'portrait-pan.alpha.mkv');
  const video = await probe(clipPath);
  const input: PeerCaseInput = { clipPath, truthPath, width: video.width, height: video.height, frameCount: video.frameCount, frames: peerFrames };
  console.log('\n## `original` against @imgly/background-removal-node (portrait-pan; the peer on', peerFrames, 'frames spread over the clip)\n');
  try {
    const peer = await runCase<PeerCaseOutput>('peer-case', input);
    const rows: Cell[][] = [[`${peer.library} (${peer.model})`, peer.secondsPerFrame * 1000, peer.iou, '-', '-', '-']];
    if (original) {
      const ratio = (peer.secondsPerFrame * 1000) / original.msPerFrame;
      const onPeerFrames = mean(peer.frameIndices.map((index) => original.frameIous[index]));
      const met = ratio >= PEER_RATIO_GOAL && onPeerFrames >= peer.iou;
      rows.push(['original', original.msPerFrame, onPeerFrames, original.iou, ratio, `>= ${PEER_RATIO_GOAL}x at equal or better IoU on the same frames: ${met ? 'met' : 'MISSED'}`]);
    }
    console.log(`IoU on frames ${peer.frameIndices.join(', ')}; whole clip beside it for original\n`);
    console.log(renderTable(['', 'ms/frame', 'IoU', 'IoU whole clip', 'x faster', 'goal'], rows, [0, 0, 4, 4, 1]));
  } catch (error) {
    console.log(`skipped: the peer library could not run here: ${(error as Error).message}`);
  }
}

/** colour error in the soft edge over a colour background, source pixels against RVM's foreground */
export async function edgeColourSection(models: ModelName[], cacheDir: string, frames: number): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-edge-'));
  try {
    const loadModel = await loadModelsModule();
    const clip = buildEdgeClip(MEDIA_DIR, dir, frames);
    const rows: Cell[][] = [];
    for (const name of models.filter((model) => model !== 'pro')) {
      const scores = await measureEdgeColour(await loadModel(name, { cacheDir }), clip, dir, cacheDir);
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
