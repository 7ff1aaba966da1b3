/**
 * Per-frame diagnostics of `original` on one clip (`node dist/bench/quality/davis-frames.js CLIP [FRAMES] [PNG_DIR]`):
 * each frame's IoU, the chosen and attached tracks, and with PNG_DIR a picture per frame (input,
 * RVM's people plane, ISNet's plane, the matte, the truth) to look at where the matte goes wrong.
 * Evaluation only: the pictures go where asked (not into the repository).
 */
import '../onnx-telemetry-off';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { ffmpegPath } from '../../src/engine/media/binaries';
import { MediaProcess } from '../../src/engine/media/process';
import { probe } from '../../src/engine/media/input-gate';
import { sourceSpecOf } from '../../src/engine/pipeline/plan';
import { buildDecodeArgs } from '../../src/engine/pipeline/ffmpeg-args';
import { FrameReader } from '../../src/engine/pipeline/frame-reader';
import { matteAtSize } from '../../src/engine/quality/evaluate-session';
import { binaryIou } from '../../src/engine/quality/metrics';
import { resizePlane, resizeRgb } from '../../src/engine/models/image/resample';
import { OriginalSession } from '../../src/engine/models/original/original-model';
import { ModelName } from '../../src/engine/types';
import { loadModelsModule } from '../engine/models';
import { clipPaths } from './davis';
import { truthDecodeArgs } from '../engine/quality';

const [clip, framesArg, pngDir] = process.argv.slice(2);
const maxFrames = framesArg ? Number(framesArg) : Infinity;
const cacheDir = join(process.cwd(), '.cache', 'models');
const box = (b: { x0: number; y0: number; x1: number; y1: number }) => `[${[b.x0, b.y0, b.x1, b.y1].map((v) => v.toFixed(2)).join(',')}]`;

async function main(): Promise<void> {
  const loadModel = await loadModelsModule();
  const model = await loadModel('original' as ModelName, { cacheDir });
  const paths = clipPaths(clip);
  const video = await probe(paths.video);
  const session = (await model.createSession({ width: video.width, height: video.height, fps: video.fps })) as OriginalSession;
  const input = { width: session.inputWidth, height: session.inputHeight };
  const source = sourceSpecOf(paths.video, video);
  const decoder = new MediaProcess(ffmpegPath(), buildDecodeArgs(source, input), { readStdout: true });
  const truthDecoder = new MediaProcess(ffmpegPath(), truthDecodeArgs(paths.truth), { readStdout: true });
  const frames = new FrameReader(decoder.stdout, input.width * input.height * 3);
  const truths = new FrameReader(truthDecoder.stdout, video.width * video.height);
  if (pngDir) mkdirSync(pngDir, { recursive: true });
  const dumpDir = process.env.DUMP_DIR;
  if (dumpDir) session.alwaysSalient = true;
  if (dumpDir) mkdirSync(dumpDir, { recursive: true });
  let sum = 0;
  let count = 0;
  for (let index = 0; index < maxFrames; index++) {
    const [data, truth] = await Promise.all([frames.next(), truths.next()]);
    if (!data || !truth) break;
    const matte = await session.segment({ index, ...input, data });
    const iou = binaryIou(matteAtSize(matte, video.width, video.height), truth);
    sum += iou;
    count++;
    const s = session.last!.subjects;
    console.log(`${index} IoU ${iou.toFixed(3)} chosen ${s.chosen.map((t) => `${t.cls}#${t.id}${box(t.box)}`).join(' ')} attached ${s.attached.map((t) => `${t.cls}#${t.id}${box(t.box)}`).join(' ')} all ${s.all.map((t) => `${t.cls}#${t.id}:${t.bestScore.toFixed(2)}`).join(' ')}`);
    if (dumpDir) {
      const { width, height } = matte;
      const truthPlane = resizePlane({ width: video.width, height: video.height, data: Float32Array.from(truth, (v) => v / 255) }, width, height);
      const bytes = (plane: Float32Array) => Buffer.from(Uint8Array.from(plane, (v) => Math.round(255 * Math.min(1, Math.max(0, v)))));
      const rgb = Buffer.from(resizeRgb(data, input.width, input.height, width, height));
      writeFileSync(join(dumpDir, `${String(index).padStart(3, '0')}.bin`), Buffer.concat([bytes(session.last!.people), bytes(session.last!.salient), Buffer.from(matte.data), bytes(truthPlane), rgb]));
      writeFileSync(join(dumpDir, `${String(index).padStart(3, '0')}.json`), JSON.stringify({ width, height, iou, chosen: s.chosen.map((t) => ({ cls: t.cls, box: t.box })), attached: s.attached.map((t) => ({ cls: t.cls, box: t.box })), all: s.all.map((t) => ({ cls: t.cls, box: t.box, score: t.bestScore })) }));
    }
    if (pngDir) {
      const { width, height } = matte;
      const rgb = resizeRgb(data, input.width, input.height, width, height);
      const gray = (plane: Float32Array) => {
        const out = new Uint8Array(width * height * 3);
        for (let i = 0; i < plane.length; i++) out[3 * i] = out[3 * i + 1] = out[3 * i + 2] = Math.round(255 * Math.min(1, Math.max(0, plane[i])));
        return out;
      };
      const truthPlane = resizePlane({ width: video.width, height: video.height, data: Float32Array.from(truth, (v) => v / 255) }, width, height);
      const panels = [rgb, gray(session.last!.people), gray(session.last!.salient), gray(Float32Array.from(matte.data, (v) => v / 255)), gray(truthPlane)];
      const sheet = Buffer.alloc(width * height * 3 * panels.length);
      for (let y = 0; y < height; y++) for (let p = 0; p < panels.length; p++) Buffer.from(panels[p].buffer, panels[p].byteOffset + y * width * 3, width * 3).copy(sheet, (y * panels.length + p) * width * 3);
      await sharp(sheet, { raw: { width: width * panels.length, height, channels: 3 } }).png().toFile(join(pngDir, `${String(index).padStart(3, '0')}.png`));
    }
  }
  decoder.kill();
  truthDecoder.kill();
  await session.close();
  console.log(`${clip}: ${count} frames, mean IoU ${(sum / count).toFixed(3)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
