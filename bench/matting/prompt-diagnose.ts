/**
 * Per-frame diagnosis of `pro`'s prompts on the prompt composites (prompt-composites.ts): for each
 * frame, the named subjects' IoU, the other subjects' leak and the tracks; with a directory, the
 * mattes written there as PNGs (matte | named truth | other truth, side by side).
 * Usage: node dist/bench/matting/prompt-diagnose.js <clip> "<prompt>" <named,indices> [frames] [png dir]
 */
import '../onnx-telemetry-off';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ffmpegPath } from '../../src/engine/media/binaries';
import { loadModel } from '../../src/engine/models';
import { ISNET_EXPORT_SIZE } from '../../src/engine/models/isnet/isnet-graph';
import { SurveyedProSession } from '../../src/engine/models/pro/surveyed-session';
import { ProSession } from '../../src/engine/models/pro/pro-model';
import { matteAtSize, surveyFrames } from '../../src/engine/quality/evaluate-session';
import { H, W, writePromptComposite } from './prompt-composites';

function decodeFrames(file: string, args: string[], size: number): Uint8Array[] {
  const bytes = execFileSync(ffmpegPath(), ['-v', 'error', '-i', file, ...args, '-f', 'rawvideo', '-'], { maxBuffer: 1 << 30 });
  return Array.from({ length: Math.floor(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));
}

async function main(): Promise<void> {
  const [clip, prompt, namedList, framesArg, pngDir] = process.argv.slice(2);
  const named = namedList.split(',').map(Number);
  const paths = writePromptComposite(clip, join(process.cwd(), '.cache', 'prompt-composites'));
  const all = decodeFrames(paths.video, ['-vf', `scale=${ISNET_EXPORT_SIZE}:${ISNET_EXPORT_SIZE}`, '-pix_fmt', 'rgb24'], ISNET_EXPORT_SIZE * ISNET_EXPORT_SIZE * 3);
  const count = Math.min(all.length, Number(framesArg ?? all.length));
  const frames = all.slice(0, count);
  const truths = paths.truths.map((t) => decodeFrames(t, ['-pix_fmt', 'gray'], W * H));
  const session = await (await loadModel('pro', { cacheDir: join(process.cwd(), '.cache', 'models') })).createSession({ width: W, height: H, fps: 25, textPrompt: prompt });
  const frameAt = (index: number) => ({ index, width: session.inputWidth, height: session.inputHeight, data: Buffer.from(frames[index].buffer, frames[index].byteOffset, frames[index].byteLength) });
  const started = process.cpuUsage();
  await surveyFrames(session, frames);
  const output: ProSession = session instanceof SurveyedProSession ? session.output : (session as ProSession);
  if (pngDir) mkdirSync(pngDir, { recursive: true });
  let inter = 0;
  let union = 0;
  let leaked = 0;
  let otherArea = 0;
  for (let f = 0; f < count; f++) {
    const matte = matteAtSize(await session.segment(frameAt(f)), W, H);
    let fi = 0;
    let fu = 0;
    let fl = 0;
    let fo = 0;
    let missed = 0;
    let extra = 0;
    for (let p = 0; p < W * H; p++) {
      const shown = matte[p] >= 128;
      const isNamed = named.some((k) => truths[k][f][p] >= 128);
      const isOther = !isNamed && truths.some((t, k) => !named.includes(k) && t[f][p] >= 128);
      if (isNamed && shown) fi++;
      if (isNamed || shown) fu++;
      if (isNamed && !shown) missed++;
      if (!isNamed && !isOther && shown) extra++;
      if (isOther) fo++;
      if (isOther && shown) fl++;
    }
    inter += fi;
    union += fu;
    leaked += fl;
    otherArea += fo;
    const tracks = output.tracks.map((t) => `#${t.id}c${t.cls}m${t.misses}o${t.opacity.toFixed(1)}[${[t.box.x0, t.box.y0, t.box.x1, t.box.y1].map((v) => v.toFixed(2)).join(',')}]${output.keep && !output.keep(t) ? 'x' : ''}`);
    console.log(`${f}\tiou ${(fu ? fi / fu : 1).toFixed(3)}\tmissed ${missed}\tbg ${extra}\tleak ${fo ? ((100 * fl) / fo).toFixed(1) : '-'}% (${fl}/${fo})\t${tracks.join(' ')}`);
    if (pngDir) {
      const sheet = Buffer.alloc(W * 3 * H);
      for (let y = 0; y < H; y++) {
        for (let x = 0; x < W; x++) {
          const p = y * W + x;
          sheet[y * 3 * W + x] = matte[p];
          sheet[y * 3 * W + W + x] = Math.max(...named.map((k) => truths[k][f][p]));
          sheet[y * 3 * W + 2 * W + x] = Math.max(0, ...truths.filter((_, k) => !named.includes(k)).map((t) => t[f][p]));
        }
      }
      execFileSync(ffmpegPath(), ['-v', 'error', '-y', '-f', 'rawvideo', '-pix_fmt', 'gray', '-video_size', `${3 * W}x${H}`, '-i', '-', join(pngDir, `${String(f).padStart(3, '0')}.png`)], { input: sheet });
    }
  }
  const cpu = process.cpuUsage(started);
  console.log(`${clip} "${prompt}" ${count} frames: IoU ${(inter / union).toFixed(4)} leak ${((100 * leaked) / Math.max(1, otherArea)).toFixed(2)}% cpu ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s`);
  console.log(`notes: ${session.notes.join(' | ')}`);
  await session.close();
}

void main();
