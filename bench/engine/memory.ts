/**
 * Memory section: the engine on a short and a long generated 1080p clip. With backpressure on both
 * pipes, peak RSS must not depend on the clip's length.
 */
import { join } from 'node:path';
import { ffmpegPath } from '../../src/engine/media/binaries';
import { runToCompletion } from '../../src/engine/media/process';
import { runCase } from './case-protocol';
import { modelsAvailable } from './models';
import { BenchOptions } from './options';
import type { SpeedCaseInput, SpeedCaseOutput } from './speed-case';
import { Cell, megabytes, renderTable } from './table';

const FORMAT = 'mp4';

export async function measureMemory(options: BenchOptions, dir: string): Promise<void> {
  const synthetic = !modelsAvailable();
  const rows: Cell[][] = [];
  for (const seconds of options.memorySeconds) {
    const clip = join(dir, `memory-${seconds}s.mp4`);
    await runToCompletion(ffmpegPath(), [
      '-v', 'error', '-nostdin', '-f', 'lavfi', '-i', `testsrc2=s=1920x1080:r=25:d=${seconds}`,
      '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-y', clip,
    ]);
    const input: SpeedCaseInput = { model: 'light', format: FORMAT, inputPath: clip, outDir: dir, cacheDir: options.cacheDir, synthetic };
    const result = await runCase<SpeedCaseOutput>('speed-case', input);
    rows.push([seconds, result.frames, result.frames / (result.wallMs / 1000), megabytes(result.peakNodeRss), megabytes(result.peakTreeRss)]);
  }
  console.log(`\n## Memory: 1080p ${FORMAT}, ${synthetic ? 'synthetic zero-cost model' : 'light model'}; peak RSS by clip length\n`);
  console.log(renderTable(['clip s', 'frames', 'fps', 'RSS node MB', 'RSS tree MB'], rows, [0, 0, 1, 0, 0]));
}
