/**
 * A process that opens RVM and either reports why it could not or closes it while a frame runs
 * (rvm-model.spec.ts): before, stopping an inference thread while onnxruntime still worked for it
 * aborted the whole process. Prints one JSON line.
 */
import { RvmMatter } from '../../../../src/engine/models/rvm/rvm-matter';
import { RvmGeometry } from '../../../../src/engine/models/rvm/rvm-model-file';

async function main(): Promise<void> {
  const { geometry, cacheDir, closeMidRun } = JSON.parse(process.argv[process.argv.length - 1]) as { geometry: RvmGeometry; cacheDir: string; closeMidRun: boolean };
  let matter: RvmMatter;
  try {
    matter = await RvmMatter.open(geometry, cacheDir);
  } catch (error) {
    console.log(JSON.stringify({ opened: false, error: (error as Error).message }));
    return;
  }
  const frame = new Uint8Array(geometry.width * geometry.height * 3).fill(90);
  // eight frames queued: the close comes while one of them runs, however fast a run is
  const stream = matter.stream();
  const runs = Array.from({ length: 8 }, () => stream.next(frame));
  if (closeMidRun) await new Promise((resolve) => setTimeout(resolve, 5));
  const settled = await Promise.allSettled([...runs, matter.close()]);
  const last = settled[runs.length - 1];
  console.log(JSON.stringify({ opened: true, run: last.status === 'rejected' ? (last.reason as Error).message : 'done' }));
}

void main();
