/**
 * What `pro` costs per frame over `original` on car-slide (prompt "car"): both sessions are fed
 * the same decoded frames; segment() wall time only (decoding excluded). `pro` adds the detector
 * on every keyframe and per-subject motion between keyframes to `original`'s ISNet keyframes.
 */
import { ffmpegPath } from '../../src/engine/media/binaries';
import { MediaProcess } from '../../src/engine/media/process';
import { probe } from '../../src/engine/media/input-gate';
import { sourceSpecOf } from '../../src/engine/pipeline/plan';
import { buildDecodeArgs } from '../../src/engine/pipeline/ffmpeg-args';
import { FrameReader } from '../../src/engine/pipeline/frame-reader';
import { ModelName } from '../../src/engine/types';
import { loadModelsModule, modelsAvailable, MODELS_MODULE } from './models';
import { BenchOptions, clipPath } from './options';
import { renderTable } from './table';

async function decodeAll(path: string, width: number, height: number): Promise<Buffer[]> {
  const video = await probe(path);
  const source = sourceSpecOf(path, video);
  const decoder = new MediaProcess(ffmpegPath(), buildDecodeArgs(source, { width, height }), { readStdout: true });
  const reader = new FrameReader(decoder.stdout, width * height * 3);
  const frames: Buffer[] = [];
  try {
    for (let frame = await reader.next(); frame; frame = await reader.next()) frames.push(Buffer.from(frame));
  } finally {
    decoder.kill();
  }
  return frames;
}

async function msPerFrame(model: ModelName, textPrompt: string | undefined, options: BenchOptions): Promise<number> {
  const loadModel = await loadModelsModule();
  const path = clipPath('car-slide');
  const video = await probe(path);
  const session = await (await loadModel(model, { cacheDir: options.cacheDir })).createSession({ width: video.width, height: video.height, fps: video.fps, textPrompt });
  const frames = await decodeAll(path, session.inputWidth, session.inputHeight);
  let busy = 0;
  for (let index = 0; index < frames.length; index++) {
    const started = performance.now();
    await session.segment({ index, width: session.inputWidth, height: session.inputHeight, data: frames[index] });
    busy += performance.now() - started;
  }
  await session.close();
  return busy / frames.length;
}

export async function proCostSection(options: BenchOptions): Promise<void> {
  console.log('\n## pro over original: segment ms/frame on car-slide (pro prompt "car")\n');
  if (!modelsAvailable()) {
    console.log(`skipped: ${MODELS_MODULE}/index does not exist`);
    return;
  }
  try {
    const original = await msPerFrame('original', undefined, options);
    const pro = await msPerFrame('pro', 'car', options);
    console.log(renderTable(['original ms/f', 'pro ms/f', 'pro / original'], [[original, pro, pro / original]], [1, 1, 2]));
  } catch (error) {
    console.log(`failed: ${(error as Error).message.slice(0, 200)}`);
  }
}
