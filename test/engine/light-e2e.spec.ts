/**
 * End to end with the real `light` model (src/engine/models, loaded by `loadModel`), through the
 * process pool as the service runs it. The model runs in the pool's child: onnxruntime-node does
 * not accept typed arrays made inside Jest's sandbox, and a real child is the production path.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EngineProcessPool } from '../../src/engine/runner/engine-process-pool';
import { MEDIA } from './support/media';
import { binaryIou } from '../../src/engine/quality/metrics';
import { decodeVideoRgba, ffmpeg } from './support/media-tools';

const modelsReady = ['index.ts', 'index.js'].some((file) => existsSync(join(__dirname, '..', '..', 'src', 'engine', 'models', file)));

(modelsReady ? describe : describe.skip)('engine end to end with the real light model (and light and human handing a video with no person to original)', () => {
  let dir: string;
  let pool: EngineProcessPool;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engine-e2e-'));
    pool = new EngineProcessPool({ cacheDir: join(dir, 'models'), workDir: dir });
  });
  afterAll(async () => {
    await pool.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('cuts the person out of portrait-pan into a VP9-alpha webm', async () => {
    const outputPath = join(dir, 'light.webm');
    const result = await pool.run({
      inputPath: MEDIA.portraitPan,
      outputPath,
      model: 'light',
      outputFormat: 'webm',
      background: { type: 'transparent' },
      previewDuration: 1,
    });
    expect(result).toMatchObject({ frames: 25, width: 640, height: 360, modelUsed: 'light', outputFormat: 'webm' });
    expect(result.notes.join(' ')).not.toContain('no person in sight');
    const decoded = await decodeVideoRgba(outputPath, 640, 360, true);
    expect(decoded.frames).toHaveLength(25);
    // scored against the exact alpha the clip was composited with
    const truth = await ffmpeg(['-i', MEDIA.portraitPanAlpha, '-frames:v', '25', '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1']);
    const ious = decoded.frames.map((frame, index) => binaryIou(alphaOf(frame), truth.subarray(index * PLANE, (index + 1) * PLANE)));
    expect(Math.min(...ious)).toBeGreaterThan(0.5);
    expect(ious.reduce((sum, iou) => sum + iou, 0) / ious.length).toBeGreaterThan(0.7);
  });

  it.each([
    ['light', 1.2, 30],
    ['human', 0.4, 10],
  ] as const)('%s: a video with no person (a car) is handed to original, which keeps the car, and the job says so (%s s)', async (model, seconds, frames) => {
    const outputPath = join(dir, `${model}-car.webm`);
    const result = await pool.run({ inputPath: MEDIA.carSlide, outputPath, model, outputFormat: 'webm', background: { type: 'transparent' }, previewDuration: seconds });
    expect(result).toMatchObject({ modelUsed: 'original', frames });
    expect(result.notes).toContain(`${model}: no person in sight in the first half second, so original matted the video instead (it keeps any subject; light and human keep people only)`);
    const decoded = await decodeVideoRgba(outputPath, 640, 360, true);
    expect(decoded.frames).toHaveLength(frames);
    const truth = await ffmpeg(['-i', MEDIA.carSlideAlpha, '-frames:v', String(frames), '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1']);
    const ious = decoded.frames.map((frame, index) => binaryIou(alphaOf(frame), truth.subarray(index * PLANE, (index + 1) * PLANE)));
    expect(ious.reduce((sum, iou) => sum + iou, 0) / ious.length).toBeGreaterThan(0.85);
  });
});

const PLANE = 640 * 360;

function alphaOf(rgba: Uint8Array): Uint8Array {
  const alpha = new Uint8Array(PLANE);
  for (let i = 0; i < PLANE; i++) alpha[i] = rgba[i * 4 + 3];
  return alpha;
}
