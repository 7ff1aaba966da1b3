/**
 * Every output format, end to end through runEngine with a deterministic test-double model: a
 * few frames of real footage in, the output decoded back and checked (frames, size, duration,
 * alpha where promised, audio, composition, GIF trails).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { runEngine } from '../../src/engine/engine';
import { EngineProgress, EngineRequest, EngineResult, OutputFormat } from '../../src/engine/types';
import { createFakeModel, ellipseAt, FakeModelOptions } from './support/fake-model';
import { MEDIA } from './support/media';
import {
  alphaAt,
  decodeAnimatedRgba,
  decodePngRgba,
  decodeVideoRgba,
  DecodedFrames,
  ffmpeg,
  probeStreams,
  readZipEntries,
  rgbAt,
} from './support/media-tools';

const PREVIEW_SECONDS = 0.5;
const PREVIEW_FRAMES = 13; // 25 fps, t = 0 .. 0.48
const STEP = 4; // matte pixels per frame: 16 output pixels
const MATTE = { width: 160, height: 90 };
const OUTPUT_SCALE = 640 / MATTE.width;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engine-formats-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Run {
  result: EngineResult;
  outputPath: string;
  progress: EngineProgress[];
}

async function run(format: OutputFormat, overrides: Partial<EngineRequest> = {}, model: FakeModelOptions = { kind: 'ellipse', step: STEP }): Promise<Run> {
  const extension = format === 'png_sequence' ? 'zip' : format;
  const outputPath = join(dir, `${format}-${Math.random().toString(36).slice(2)}.${extension}`);
  const progress: EngineProgress[] = [];
  const fake = createFakeModel(model);
  const result = await runEngine(
    { inputPath: MEDIA.portraitPan, outputPath, model: 'light', outputFormat: format, background: { type: 'transparent' }, previewDuration: PREVIEW_SECONDS, ...overrides },
    { loadModel: async () => fake, cacheDir: dir, workDir: dir },
    (p) => progress.push(p),
  );
  expect(fake.sessions.every((session) => session.closed)).toBe(true);
  return { result, outputPath, progress };
}

/** The moving ellipse is opaque at its centre, transparent in the far corner and just left of it. */
function expectEllipseAlpha(decoded: DecodedFrames, frame: number): void {
  const { centerX, centerY, radiusX } = ellipseAt(frame, MATTE, STEP, OUTPUT_SCALE);
  expect(alphaAt(decoded, frame, Math.round(centerX), Math.round(centerY))).toBeGreaterThan(230);
  expect(alphaAt(decoded, frame, 630, 10)).toBeLessThan(25);
  if (centerX - radiusX - 8 >= 0) expect(alphaAt(decoded, frame, Math.round(centerX - radiusX - 8), Math.round(centerY))).toBeLessThan(25);
}

function expectPreviewResult(result: EngineResult, format: OutputFormat, size = { width: 640, height: 360 }): void {
  expect(result).toMatchObject({ frames: PREVIEW_FRAMES, ...size, outputFormat: format, modelUsed: 'light' });
  expect(result.durationSeconds).toBeCloseTo(PREVIEW_FRAMES / 25, 5);
}

describe('output formats (test-double model, 0.5 s of portrait-pan.mp4)', () => {
  it('webm: VP9 with alpha, decodable through libvpx', async () => {
    const { result, outputPath, progress } = await run('webm');
    expectPreviewResult(result, 'webm');
    const probe = await probeStreams(outputPath);
    expect(probe.streams).toHaveLength(1);
    expect(probe.streams[0]).toMatchObject({ codec_name: 'vp9', width: 640, height: 360, nb_read_frames: String(PREVIEW_FRAMES) });
    expect(probe.streams[0].tags?.alpha_mode ?? probe.streams[0].tags?.ALPHA_MODE).toBe('1');
    expect(Number(probe.format.duration)).toBeCloseTo(0.52, 1);
    const decoded = await decodeVideoRgba(outputPath, 640, 360, true);
    expect(decoded.frames).toHaveLength(PREVIEW_FRAMES);
    for (const frame of [0, 6, 12]) expectEllipseAlpha(decoded, frame);
    expect(progress.at(-1)).toEqual({ framesDone: PREVIEW_FRAMES, framesTotal: PREVIEW_FRAMES });
    expect(progress.map((p) => p.framesDone)).toEqual([...progress.map((p) => p.framesDone)].sort((a, b) => a - b));
  });

  it('mov: ProRes 4444 with alpha', async () => {
    const { result, outputPath } = await run('mov');
    expectPreviewResult(result, 'mov');
    const probe = await probeStreams(outputPath);
    expect(probe.streams[0]).toMatchObject({ codec_name: 'prores', nb_read_frames: String(PREVIEW_FRAMES) });
    expect(probe.streams[0].pix_fmt).toMatch(/^yuva444p1[02]le$/); // newer ffprobes decode 4444 as 12-bit
    const decoded = await decodeVideoRgba(outputPath, 640, 360);
    for (const frame of [0, 12]) expectEllipseAlpha(decoded, frame);
  });

  it('mp4: H.264 over the background color (transparent falls back to black)', async () => {
    const { result, outputPath } = await run('mp4', { background: { type: 'color', rgb: [0, 255, 0] } });
    expectPreviewResult(result, 'mp4');
    const probe = await probeStreams(outputPath);
    expect(probe.streams[0]).toMatchObject({ codec_name: 'h264', pix_fmt: 'yuv420p', nb_read_frames: String(PREVIEW_FRAMES) });
    const decoded = await decodeVideoRgba(outputPath, 640, 360);
    const [r, g, b] = rgbAt(decoded, 6, 630, 10);
    expect([r < 30, g > 220, b < 30]).toEqual([true, true, true]);
    const { centerX, centerY } = ellipseAt(6, MATTE, STEP, OUTPUT_SCALE);
    expect(rgbAt(decoded, 6, Math.round(centerX), Math.round(centerY))[1]).toBeLessThan(200); // the footage, not green

    const black = await run('mp4');
    expect(black.result.notes).toContain('mp4 has no alpha channel: composited over black');
    const blackFrames = await decodeVideoRgba(black.outputPath, 640, 360);
    expect(Math.max(...rgbAt(blackFrames, 0, 630, 10))).toBeLessThan(25);
  });

  it('gif: transparent, one palette, no trails (disposal 2 on every frame)', async () => {
    const { result, outputPath } = await run('gif');
    expectPreviewResult(result, 'gif');
    const decoded = await decodeAnimatedRgba(outputPath);
    expect(decoded.pages).toBe(PREVIEW_FRAMES);
    expect(decoded.hasAlpha).toBe(true);
    expect([decoded.width, decoded.height]).toEqual([640, 360]);
    for (const frame of [0, 12]) expectEllipseAlpha(decoded, frame);
    // a pixel the subject covered in frame N-1 and has left in frame N must be transparent in N
    for (const frame of [1, 6, 12]) {
      const previous = ellipseAt(frame - 1, MATTE, STEP, OUTPUT_SCALE);
      const x = Math.round(previous.centerX - previous.radiusX + 8);
      const y = Math.round(previous.centerY);
      expect(alphaAt(decoded, frame - 1, x, y)).toBe(255);
      expect(alphaAt(decoded, frame, x, y)).toBe(0);
    }
  });

  it('webp: animated, with alpha, looping', async () => {
    const { result, outputPath } = await run('webp');
    expectPreviewResult(result, 'webp');
    const decoded = await decodeAnimatedRgba(outputPath);
    expect(decoded.pages).toBe(PREVIEW_FRAMES);
    expect(decoded.hasAlpha).toBe(true);
    expect(decoded.delay).toEqual(new Array(PREVIEW_FRAMES).fill(40));
    expect((await sharp(outputPath, { animated: true }).metadata()).loop).toBe(0);
    for (const frame of [0, 12]) expectEllipseAlpha(decoded, frame);
  });

  it('png_sequence: a zip of RGBA PNG frames, in order', async () => {
    const { result, outputPath } = await run('png_sequence');
    expectPreviewResult(result, 'png_sequence');
    const entries = await readZipEntries(outputPath);
    expect([...entries.keys()]).toEqual(Array.from({ length: PREVIEW_FRAMES }, (_, i) => `frame_${String(i).padStart(5, '0')}.png`));
    const frames: Buffer[] = [];
    for (const png of entries.values()) {
      const image = await decodePngRgba(png);
      expect([image.width, image.height, image.channels]).toEqual([640, 360, 4]);
      frames.push(image.data);
    }
    const decoded = { width: 640, height: 360, frames };
    for (const frame of [0, 6, 12]) expectEllipseAlpha(decoded, frame);
    expect((await readdir(dir)).filter((name) => name.endsWith('.partial') || name.startsWith('backdrop-engine-'))).toEqual([]);
  });
});

describe('audio', () => {
  let withAudio: string;
  beforeAll(async () => {
    withAudio = join(dir, 'with-audio.mp4');
    await ffmpeg([
      '-f', 'lavfi', '-i', 'testsrc=s=320x180:r=25:d=1',
      '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1',
      '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', '-y', withAudio,
    ]);
  });

  it.each<[OutputFormat, string]>([
    ['webm', 'opus'],
    ['mov', 'pcm_s16le'],
    ['mp4', 'aac'],
  ])('keeps the input audio in %s (%s)', async (format, audioCodec) => {
    const { result, outputPath } = await run(format, { inputPath: withAudio, previewDuration: undefined, background: { type: 'color', rgb: [0, 0, 255] } });
    expect(result.frames).toBe(25);
    const { streams } = await probeStreams(outputPath);
    expect(streams.map((stream) => stream.codec_type).sort()).toEqual(['audio', 'video']);
    const audio = streams.find((stream) => stream.codec_type === 'audio')!;
    expect(audio.codec_name).toBe(audioCodec);
    expect(Number(audio.duration ?? 1)).toBeGreaterThan(0.9);
  });

  it('drops it in formats without audio', async () => {
    const { outputPath } = await run('webp', { inputPath: withAudio, previewDuration: 0.2 });
    expect((await decodeAnimatedRgba(outputPath)).pages).toBe(5);
  });
});

describe('composition and backgrounds', () => {
  it('places a scaled foreground at its anchor and offset on a transparent canvas', async () => {
    const { result, outputPath } = await run(
      'png_sequence',
      { previewDuration: 0.1, composition: { canvas: { width: 400, height: 400 }, foreground: { anchor: 'bottom-right', scale: 0.5, offset: { x: -10, y: -10 } } } },
      { kind: 'full' },
    );
    expect([result.width, result.height]).toEqual([400, 400]);
    // fit 400/640 = 0.625, half of it: 200 x 112.5 -> 113; bottom-right, 10 px in: x 190..389, y 277..389
    const image = await decodePngRgba([...(await readZipEntries(outputPath)).values()][0]);
    const alpha = (x: number, y: number) => image.data[(y * 400 + x) * 4 + 3];
    expect([alpha(190, 277), alpha(389, 389), alpha(300, 330)]).toEqual([255, 255, 255]);
    expect([alpha(188, 300), alpha(300, 275), alpha(391, 300), alpha(300, 391), alpha(5, 5)]).toEqual([0, 0, 0, 0, 0]);
  });

  it('covers the canvas with an image background (scaled, cropped, repeated on every frame)', async () => {
    const imagePath = join(dir, 'blue.png');
    await sharp({ create: { width: 300, height: 100, channels: 3, background: { r: 0, g: 0, b: 255 } } }).png().toFile(imagePath);
    const { result, outputPath } = await run('mp4', {
      background: { type: 'image', imagePath },
      composition: { canvas: { width: 320, height: 320 }, foreground: { anchor: 'center', scale: 0.5, offset: { x: 0, y: 0 } } },
    });
    expect([result.frames, result.width, result.height]).toEqual([PREVIEW_FRAMES, 320, 320]);
    const decoded = await decodeVideoRgba(outputPath, 320, 320);
    expect(decoded.frames).toHaveLength(PREVIEW_FRAMES);
    for (const frame of [0, 12]) {
      const [r, g, b] = rgbAt(decoded, frame, 5, 5);
      expect([r < 30, g < 30, b > 220]).toEqual([true, true, true]);
    }
  });

  it('handles odd sizes: grown to even for H.264, kept for VP9', async () => {
    const odd = join(dir, 'odd.mp4');
    await ffmpeg(['-f', 'lavfi', '-i', 'testsrc=s=201x113:r=25:d=0.4', '-c:v', 'libx264', '-pix_fmt', 'yuv444p', '-y', odd]);
    const mp4 = await run('mp4', { inputPath: odd, previewDuration: undefined, background: { type: 'color', rgb: [255, 0, 0] } });
    expect([mp4.result.width, mp4.result.height, mp4.result.frames]).toEqual([202, 114, 10]);
    expect((await probeStreams(mp4.outputPath)).streams[0]).toMatchObject({ width: 202, height: 114 });
    const webm = await run('webm', { inputPath: odd, previewDuration: undefined });
    expect((await probeStreams(webm.outputPath)).streams[0]).toMatchObject({ width: 201, height: 113, nb_read_frames: '10' });
  });
});

describe('frame alignment', () => {
  /** A bright box moving over black; `bright` mattes follow the content, so alpha must match luma. */
  async function movingBox(name: string, extraFilter = '', extraArgs: string[] = []): Promise<string> {
    const path = join(dir, name);
    await ffmpeg([
      '-f', 'lavfi', '-i', 'color=black:s=160x96:r=25:d=1.2',
      '-f', 'lavfi', '-i', 'color=white:s=24x24:r=25:d=1.2',
      '-filter_complex', `[0:v][1:v]overlay=x=4+t*100:y=36:shortest=1${extraFilter}`,
      ...extraArgs, '-c:v', 'libx264', '-pix_fmt', 'yuv444p', '-y', path,
    ]);
    return path;
  }

  async function expectAlphaFollowsContent(inputPath: string, width: number, height: number): Promise<EngineResult> {
    const { result, outputPath } = await run('png_sequence', { inputPath, previewDuration: undefined }, { kind: 'bright', input: { width, height } });
    const entries = [...(await readZipEntries(outputPath)).values()];
    expect(entries).toHaveLength(result.frames);
    for (const png of entries) {
      const image = await decodePngRgba(png);
      expect([image.width, image.height]).toEqual([width, height]);
      let mismatched = 0;
      for (let i = 0; i < width * height; i++) {
        const luma = (image.data[i * 4] + image.data[i * 4 + 1] + image.data[i * 4 + 2]) / 3;
        if ((luma > 128) !== (image.data[i * 4 + 3] > 128)) mismatched++;
      }
      expect(mismatched).toBeLessThan(width * 2); // edge pixels only; one frame off would be ~2 x 24 x 4
    }
    return result;
  }

  it('keeps mattes on their frames for variable frame rate input', async () => {
    // every third frame dropped: gaps in the timestamps, an average rate of 16.7 fps
    const vfr = await movingBox('vfr.mp4', ',select=not(eq(mod(n\\,3)\\,2))', ['-vsync', 'vfr']);
    const { streams } = await probeStreams(vfr);
    expect(streams[0].nb_read_frames).toBe('20');
    const result = await expectAlphaFollowsContent(vfr, 160, 96);
    expect(result.frames).toBeGreaterThan(15);
  });

  it('honours rotation metadata: output upright at the display size, mattes aligned', async () => {
    const upright = await movingBox('upright.mp4');
    const rotated = join(dir, 'rotated.mp4');
    await ffmpeg(['-i', upright, '-c', 'copy', '-metadata:s:v:0', 'rotate=90', '-y', rotated]);
    const result = await expectAlphaFollowsContent(rotated, 96, 160);
    expect([result.width, result.height]).toEqual([96, 160]);
    expect(result.notes.some((note) => note.includes('rotated'))).toBe(true);
  });
});

describe('refusals and cancel', () => {
  it('input_too_long, from the probe, before any model is loaded', async () => {
    const loadModel = jest.fn();
    const outputPath = join(dir, 'long.webm');
    await expect(
      runEngine({ inputPath: MEDIA.portraitPan, outputPath, model: 'light', outputFormat: 'webm', background: { type: 'transparent' }, maxDurationSeconds: 3 }, { loadModel, cacheDir: dir }),
    ).rejects.toMatchObject({ code: 'input_too_long' });
    expect(loadModel).not.toHaveBeenCalled();
    expect(existsSync(outputPath)).toBe(false);
  });

  it('input_invalid for bytes that are not a video, and for a truncated file', async () => {
    const text = join(dir, 'text.mp4');
    await writeFile(text, 'not a video at all');
    const truncated = join(dir, 'truncated.mp4');
    await writeFile(truncated, (await readFile(MEDIA.portraitPan)).subarray(0, 4096));
    for (const inputPath of [text, truncated]) {
      await expect(
        runEngine({ inputPath, outputPath: join(dir, 'x.webm'), model: 'light', outputFormat: 'webm', background: { type: 'transparent' } }, { loadModel: jest.fn(), cacheDir: dir }),
      ).rejects.toMatchObject({ code: 'input_invalid' });
    }
  });

  it('cancel: aborting kills the pipeline and leaves no output', async () => {
    const controller = new AbortController();
    const outputPath = join(dir, 'aborted.webm');
    const fake = createFakeModel({ kind: 'ellipse', delayMs: 20 });
    const run = runEngine(
      { inputPath: MEDIA.portraitPan, outputPath, model: 'light', outputFormat: 'webm', background: { type: 'transparent' } },
      { loadModel: async () => fake, cacheDir: dir },
      (progress) => progress.framesDone === 3 && controller.abort(),
      controller.signal,
    );
    await expect(run).rejects.toMatchObject({ code: 'canceled' });
    expect(fake.sessions[0].framesSeen.length).toBeLessThan(10);
    expect(fake.sessions[0].closed).toBe(true);
    expect((await readdir(dir)).filter((name) => name.includes('aborted'))).toEqual([]);
  });
});
