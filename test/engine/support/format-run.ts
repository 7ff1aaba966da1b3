/** The harness shared by the output-format specs (formats.spec.ts, formats-composition.spec.ts, input-kinds.spec.ts). */
import { EngineProgress, EngineRequest, EngineResult, OutputFormat } from '../../../src/engine/types';
import { join } from 'node:path';
import { runEngine } from '../../../src/engine/engine';
import { createFakeModel, ellipseAt, FakeModelOptions, FakeSession } from './fake-model';
import { MEDIA } from './media';
import { alphaAt, DecodedFrames, decodePngRgba, ffmpeg, readZipEntries } from './media-tools';

export const PREVIEW_SECONDS = 0.5;
export const PREVIEW_FRAMES = 13; // 25 fps, t = 0 .. 0.48
export const STEP = 4; // matte pixels per frame: 16 output pixels
export const MATTE = { width: 160, height: 90 };
export const OUTPUT_SCALE = 640 / MATTE.width;

export interface Run {
  result: EngineResult;
  outputPath: string;
  progress: EngineProgress[];
  sessions: FakeSession[];
}

/** Runs the engine on 0.5 s of portrait-pan.mp4 with the test-double model, writing under `dir()`. */
export function formatRunner(dir: () => string) {
  return async function run(format: OutputFormat, overrides: Partial<EngineRequest> = {}, model: FakeModelOptions = { kind: 'ellipse', step: STEP }): Promise<Run> {
    const extension = format === 'png_sequence' ? 'zip' : format;
    const outputPath = join(dir(), `${format}-${Math.random().toString(36).slice(2)}.${extension}`);
    const progress: EngineProgress[] = [];
    const fake = createFakeModel(model);
    const result = await runEngine(
      { inputPath: MEDIA.portraitPan, outputPath, model: 'light', outputFormat: format, background: { type: 'transparent' }, previewDuration: PREVIEW_SECONDS, ...overrides },
      { loadModel: async () => fake, cacheDir: dir(), workDir: dir() },
      (p) => progress.push(p),
    );
    expect(fake.sessions.every((session) => session.closed)).toBe(true);
    return { result, outputPath, progress, sessions: fake.sessions };
  };
}

/** The moving ellipse is opaque at its centre, transparent in the far corner and just left of it. */
export function expectEllipseAlpha(decoded: DecodedFrames, frame: number): void {
  const { centerX, centerY, radiusX } = ellipseAt(frame, MATTE, STEP, OUTPUT_SCALE);
  expect(alphaAt(decoded, frame, Math.round(centerX), Math.round(centerY))).toBeGreaterThan(230);
  expect(alphaAt(decoded, frame, 630, 10)).toBeLessThan(25);
  if (centerX - radiusX - 8 >= 0) expect(alphaAt(decoded, frame, Math.round(centerX - radiusX - 8), Math.round(centerY))).toBeLessThan(25);
}

export function expectPreviewResult(result: EngineResult, format: OutputFormat, size = { width: 640, height: 360 }): void {
  expect(result).toMatchObject({ frames: PREVIEW_FRAMES, ...size, outputFormat: format, modelUsed: 'light' });
  expect(result.durationSeconds).toBeCloseTo(PREVIEW_FRAMES / 25, 5);
}

/**
 * Frame alignment on synthetic footage: a white box moving over black, and the `bright` test-double
 * model, whose mattes follow the content, so that every output pixel's alpha must match its luma.
 */
export function alignmentChecks(dir: () => string, run: ReturnType<typeof formatRunner>) {
  /** 1.2 s at 25 fps, 160x96, the box moving 4 px a frame; `extraFilter` and `extraArgs` change it */
  async function movingBox(name: string, extraFilter = '', extraArgs: string[] = []): Promise<string> {
    const path = join(dir(), name);
    await ffmpeg([
      '-f', 'lavfi', '-i', 'color=black:s=160x96:r=25:d=1.2',
      '-f', 'lavfi', '-i', 'color=white:s=24x24:r=25:d=1.2',
      '-filter_complex', `[0:v][1:v]overlay=x=4+t*100:y=36:shortest=1${extraFilter}`,
      ...extraArgs, '-c:v', 'libx264', '-pix_fmt', 'yuv444p', '-y', path,
    ]);
    return path;
  }

  /** the whole input as PNG frames of `width` x `height`, each frame's alpha its own luma */
  async function expectAlphaFollowsContent(inputPath: string, width: number, height: number, framesInFlight?: number): Promise<Run> {
    const finished = await run('png_sequence', { inputPath, previewDuration: undefined }, { kind: 'bright', input: { width, height }, framesInFlight });
    const { result, outputPath } = finished;
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
    return finished;
  }

  return { movingBox, expectAlphaFollowsContent };
}
