/**
 * A long job's chunks joined into a WebP keep the colours of a single run on BT.709 (HD) video: the
 * chunks hold the source's YCbCr, which WebP's decoders read as BT.601 unless the join converts it.
 * Through the real engine and join with a test-double model (an ellipse on a colour background).
 */
import { join } from 'node:path';
import { runEngine } from '../../src/engine/engine';
import { joinSegments } from '../../src/engine/chunks/join-segments';
import { segmentFormatFor } from '../../src/engine/chunks/segment';
import { EngineRequest } from '../../src/engine/types';
import { createFakeModel } from './support/fake-model';
import { decodeAnimatedRgba, ffmpeg, rgbAt } from './support/media-tools';
import { temporaryDirectory } from '../support/temporary-directory';

const dir = temporaryDirectory('engine-chunk-colour-');
const RED = [200, 60, 40] as const;
/** 1 s of 1280x720 at 25 fps, tagged BT.709 */
const FRAMES = 25;

describe('a chunked job joined into a WebP on BT.709 video', () => {
  let clip: string;

  beforeAll(async () => {
    clip = join(dir(), 'hd.mp4');
    await ffmpeg(['-f', 'lavfi', '-i', `testsrc2=size=1280x720:rate=25:duration=${FRAMES / 25}`, '-c:v', 'libx264', '-crf', '18', '-pix_fmt', 'yuv420p', '-colorspace', 'bt709', '-color_primaries', 'bt709', '-color_trc', 'bt709', '-vf', 'scale=out_color_matrix=bt709', clip]);
  });

  async function chunk(name: string, request: Partial<EngineRequest>) {
    const outputPath = join(dir(), name);
    const model = createFakeModel({ kind: 'ellipse', name: 'light', input: { width: 160, height: 90 } });
    const result = await runEngine(
      { inputPath: clip, outputPath, model: 'light', outputFormat: segmentFormatFor('webp'), background: { type: 'color', rgb: [...RED] }, ...request },
      { loadModel: async () => model, cacheDir: dir(), workDir: dir() },
      () => undefined,
    );
    return { outputPath, durationSeconds: result.durationSeconds };
  }

  it('keeps the background colour requested (200,60,40 came out as 187,47,40)', async () => {
    const first = await chunk('first.mov', { segment: { startSeconds: 0, endSeconds: 0.48, prerollSeconds: 0 } });
    const second = await chunk('second.mov', { segment: { startSeconds: 0.48, prerollSeconds: 0.2 } });
    const outputPath = join(dir(), 'joined.webp');
    await joinSegments({ sourcePath: clip, chunkPaths: [first.outputPath, second.outputPath], chunkDurations: [first.durationSeconds, second.durationSeconds], outputFormat: 'webp', outputPath });

    const frames = await decodeAnimatedRgba(outputPath);
    expect(frames.pages).toBe(FRAMES);
    for (const frame of [0, FRAMES - 1]) {
      const corner = rgbAt(frames, frame, 8, 8);
      corner.forEach((value, channel) => expect(Math.abs(value - RED[channel])).toBeLessThanOrEqual(4));
    }
  });
});
