/**
 * bench:scale: long jobs in chunks across worker processes, measured on a real deployment (one API
 * process, N worker processes, Redis queue, Postgres, local storage), each figure next to its goal.
 *
 * 1. Scheduling: a 2-minute clip through a fake engine that takes a fixed time per frame (a timer, no
 *    CPU: see fixed-time-model.ts), on 1, 2 and 4 worker processes. T1 is today's single-task path on
 *    one worker (CHUNK_SECONDS=0); goal: wall time with N workers <= 1.15 x T1/N.
 * 2. Quality: the real engine (`light`) on 2 workers, on 4 s clips with ground-truth alpha cut into
 *    3 chunks (a composite and two DAVIS sequences of people): frame count and duration equal to the input's, audio offset < 1 frame, IoU and dtSSD
 *    in the 10 frames around each seam within 10% of the rest of the clip.
 *
 *   npm run bench:scale          BENCH_CHUNK_SECONDS=10,15,20,30 (chunk lengths to compare in part 1)
 *                                BENCH_FRAME_MS=40 (the fake engine's time per frame), BENCH_WORKERS=1,2,4
 *   BENCH_SKIP_QUALITY=1 / BENCH_SKIP_SCALING=1 run one part only
 */
import '../onnx-telemetry-off';
import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadConfig } from '../../src/config/app-config';
import { ffmpegPath, ffprobePath } from '../../src/engine/media/binaries';
import { audioOffsetSeconds, SeamScores, seamScores } from '../../src/engine/quality/seam-scores';
import { planChunks } from '../../src/modules/jobs/domain/chunk-plan';
import { MEDIA_DIR } from '../engine/options';
import { Deployment } from './deployment';
import { FRAME_MS } from './fixed-time-model';

const FAKE_MODEL_MODULE = path.join(__dirname, 'fixed-time-model.js');
const DEFAULTS = loadConfig({ DATA_DIR: os.tmpdir() }).chunking;
const QUALITY_CHUNK_SECONDS = 1;
const MATTE_SIZE = { width: 320, height: 180 };
/**
 * People with exact or hand-made alpha (`light` is a person model): a composite, and real footage
 * from DAVIS (read in place from ../shared/media/davis, evaluation use; the noise-track copy lives in
 * a temporary directory only).
 */
const QUALITY_CLIPS = ['portrait-pan', 'davis/kite-walk', 'davis/breakdance-flare'];

const ffmpeg = (args: string[]): Buffer => execFileSync(ffmpegPath(), ['-v', 'error', '-nostdin', ...args], { maxBuffer: 1 << 30 });

function countFrames(file: string): { frames: number; duration: number; fps: number } {
  const json = JSON.parse(
    execFileSync(ffprobePath(), ['-v', 'error', '-count_frames', '-select_streams', 'v:0', '-show_entries', 'stream=nb_read_frames,r_frame_rate:format=duration', '-of', 'json', file], { encoding: 'utf8' }),
  ) as { streams: Array<{ nb_read_frames: string; r_frame_rate: string }>; format: { duration: string } };
  const [num, den] = json.streams[0].r_frame_rate.split('/').map(Number);
  return { frames: Number(json.streams[0].nb_read_frames), duration: Number(json.format.duration), fps: num / (den || 1) };
}

function mattes(file: string, vp9Alpha: boolean): Uint8Array[] {
  const filter = vp9Alpha ? `alphaextract,scale=${MATTE_SIZE.width}:${MATTE_SIZE.height}` : `scale=${MATTE_SIZE.width}:${MATTE_SIZE.height},format=gray`;
  const raw = ffmpeg([...(vp9Alpha ? ['-c:v', 'libvpx-vp9'] : []), '-i', file, '-vf', filter, '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1']);
  const size = MATTE_SIZE.width * MATTE_SIZE.height;
  return Array.from({ length: raw.length / size }, (_, i) => raw.subarray(i * size, (i + 1) * size));
}

const pad = (value: string, width: number) => value.padEnd(width);
const row = (cells: string[], widths: number[]) => console.log('| ' + cells.map((cell, i) => pad(cell, widths[i])).join(' | ') + ' |');
const verdict = (ok: boolean) => (ok ? 'met' : 'NOT MET');

async function scaling(deployment: Deployment, dir: string): Promise<void> {
  const clip = path.join(dir, 'two-minutes.mp4');
  ffmpeg(['-f', 'lavfi', '-i', 'testsrc2=size=320x180:rate=25:duration=120', '-f', 'lavfi', '-i', 'anoisesrc=d=120:c=pink:a=0.3', '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '50', '-c:a', 'aac', '-shortest', '-y', clip]);
  const { frames } = countFrames(clip);
  const videoUrl = await deployment.upload(clip);
  const request = { video_url: videoUrl, model: 'light', output_format: 'mp4', bg_type: 'green' };
  const fake = { ENGINE_MODEL_MODULE: FAKE_MODEL_MODULE, BENCH_FRAME_MS: String(FRAME_MS) };

  console.log(`\n## 1. Scheduling: a 2-minute clip (${frames} frames, 320x180), fake engine at ${FRAME_MS} ms a frame (inference floor ${((frames * FRAME_MS) / 1000).toFixed(1)} s on one worker)`);
  await deployment.startWorkers(1, { ...fake, CHUNK_SECONDS: '0' });
  const single = await deployment.runJob(request);
  const t1 = single.seconds;
  console.log(`T1 (today's single-task path, 1 worker): ${t1.toFixed(1)} s\n`);

  const chunkLengths = (process.env.BENCH_CHUNK_SECONDS ?? String(DEFAULTS.chunkSeconds)).split(',').map(Number);
  const widths = [8, 7, 7, 9, 8, 16, 8, 40];
  row(['chunk s', 'chunks', 'workers', 'wall s', 'T1/N s', 'ratio to T1/N', 'goal', 'note'], widths);
  row(widths.map((width) => '-'.repeat(width)), widths);
  for (const chunkSeconds of chunkLengths) {
    const chunks = planChunks(120, null, chunkSeconds, DEFAULTS.prerollSeconds)?.length ?? 1;
    for (const workers of (process.env.BENCH_WORKERS ?? '1,2,4').split(',').map(Number)) {
      await deployment.startWorkers(workers, { ...fake, CHUNK_SECONDS: String(chunkSeconds) });
      const run = await deployment.runJob(request);
      const ratio = run.seconds / (t1 / workers);
      const note = workers > os.cpus().length ? `${workers} processes on ${os.cpus().length} cores` : '';
      row([String(chunkSeconds), String(chunks), String(workers), run.seconds.toFixed(1), (t1 / workers).toFixed(1), `${ratio.toFixed(2)}x (${verdict(ratio <= 1.15)})`, '<= 1.15x', note], widths);
    }
  }
}

interface ClipRun {
  input: { frames: number; duration: number; fps: number };
  output: { frames: number; duration: number };
  offset: number;
  scores: SeamScores;
  chunks: number;
}

/** Runs every quality clip on the workers now running; seams are scored where the chunks would meet. */
async function runClips(deployment: Deployment, dir: string, label: string): Promise<Map<string, ClipRun>> {
  const runs = new Map<string, ClipRun>();
  for (const source of QUALITY_CLIPS) {
    const name = path.basename(source);
    const clip = path.join(dir, `${name}-noise.mp4`);
    ffmpeg(['-i', path.join(MEDIA_DIR, `${source}.mp4`), '-f', 'lavfi', '-i', 'anoisesrc=d=30:c=pink:a=0.5', '-map', '0:v', '-map', '1:a', '-c:v', 'copy', '-c:a', 'aac', '-shortest', '-y', clip]);
    const input = countFrames(clip);
    const run = await deployment.runJob({ video_url: await deployment.upload(clip), model: 'light', output_format: 'webm' });
    const outputPath = path.join(dir, `${name}-${label}.webm`);
    writeFileSync(outputPath, run.output);
    const ranges = planChunks(input.duration, null, QUALITY_CHUNK_SECONDS, DEFAULTS.prerollSeconds) ?? [];
    const seams = ranges.slice(1).map((range) => Math.round(range.startSeconds * input.fps));
    runs.set(name, {
      input,
      output: countFrames(outputPath),
      offset: await audioOffsetSeconds(clip, outputPath),
      scores: seamScores(mattes(outputPath, true), mattes(path.join(MEDIA_DIR, `${source}.alpha.mkv`), false), seams),
      chunks: ranges.length,
    });
  }
  return runs;
}

async function quality(deployment: Deployment, dir: string): Promise<void> {
  console.log(`\n## 2. Quality at the seams: real engine (light), 2 workers, CHUNK_SECONDS=${QUALITY_CHUNK_SECONDS}, pre-roll ${DEFAULTS.prerollSeconds} s, webm`);
  console.log('IoU and dtSSD against the ground truth, in the 10 frames around each seam and over the rest; the single-task run of the same clip, scored on the same frames, is the reference');
  await deployment.startWorkers(2, { CHUNK_SECONDS: String(QUALITY_CHUNK_SECONDS) });
  const chunked = await runClips(deployment, dir, 'chunked');
  await deployment.startWorkers(2, { CHUNK_SECONDS: '0' });
  const single = await runClips(deployment, dir, 'single');
  const widths = [16, 6, 13, 23, 12, 15, 15, 17, 17];
  row(['clip', 'chunks', 'frames in/out', 'duration in/out/single', 'audio offset', 'IoU seam/rest', 'single: IoU', 'dtSSD seam/rest', 'single: dtSSD'], widths);
  row(widths.map((width) => '-'.repeat(width)), widths);
  const goals: string[] = [];
  for (const [name, run] of chunked) {
    const reference = single.get(name)!.scores;
    const { input, output, offset, scores } = run;
    row(
      [
        name,
        String(run.chunks),
        `${input.frames}/${output.frames}`,
        `${input.duration.toFixed(4)}/${output.duration.toFixed(3)}/${single.get(name)!.output.duration.toFixed(3)}`,
        `${(offset * 1000).toFixed(1)} ms`,
        `${scores.seamIou.toFixed(3)}/${scores.restIou.toFixed(3)}`,
        `${reference.seamIou.toFixed(3)}/${reference.restIou.toFixed(3)}`,
        `${(scores.seamDtssd * 1e3).toFixed(2)}/${(scores.restDtssd * 1e3).toFixed(2)}e-3`,
        `${(reference.seamDtssd * 1e3).toFixed(2)}/${(reference.restDtssd * 1e3).toFixed(2)}e-3`,
      ],
      widths,
    );
    goals.push(
      `${name}: >= 3 chunks ${verdict(run.chunks >= 3)}; frames equal ${verdict(input.frames === output.frames)}; duration equal to webm's 1 ms timebase (the single run's within 1 ms, the input's within 2 ms) ${verdict(Math.abs(output.duration - single.get(name)!.output.duration) <= 1.0001e-3 && Math.abs(input.duration - output.duration) <= 2e-3)}; ` +
        `audio offset < 1 frame (${(1000 / input.fps).toFixed(0)} ms) ${verdict(Math.abs(offset) < 1 / input.fps)}; ` +
        `seam IoU >= 0.9 x rest ${verdict(scores.seamIou >= 0.9 * scores.restIou)}; seam dtSSD <= 1.1 x rest ${verdict(scores.seamDtssd <= 1.1 * scores.restDtssd)}` +
        ` (single run: ${verdict(reference.seamDtssd <= 1.1 * reference.restDtssd)})`,
    );
  }
  console.log('');
  goals.forEach((line) => console.log(line));
}

async function main(): Promise<void> {
  console.log(`# bench:scale on ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, Redis queue`);
  console.log(`defaults: CHUNK_SECONDS=${DEFAULTS.chunkSeconds}, CHUNK_PREROLL_SECONDS=${DEFAULTS.prerollSeconds}`);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-scale-media-'));
  const deployment = new Deployment();
  try {
    await deployment.startApi();
    if (!process.env.BENCH_SKIP_SCALING) await scaling(deployment, dir);
    if (!process.env.BENCH_SKIP_QUALITY) await quality(deployment, dir);
  } finally {
    await deployment.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(error.stack ?? error);
    process.exit(1);
  },
);
