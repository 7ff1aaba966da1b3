/**
 * The engine finds letterbox or pillarbox bars on the video's first frame (the decode check's still,
 * pictureInBars) and tells the model's session where the picture lies (SessionOptions.picture), on
 * a hand-over too; `light` gives RVM's pixels to the picture (picture-rvm.ts, composites.spec.ts).
 */
import { join } from 'node:path';
import { runEngine } from '../../src/engine/engine';
import { ModelName } from '../../src/engine/types';
import { createFakeModel, FakeModel } from './support/fake-model';
import { MEDIA } from './support/media';
import { ffmpeg } from './support/media-tools';
import { temporaryDirectory } from '../support/temporary-directory';

const dir = temporaryDirectory('engine-picture-');

const SIZE = { width: 160, height: 90 };

async function sessionOptionsFor(inputPath: string, name: string) {
  const fakes: Record<'light' | 'original', FakeModel> = {
    light: createFakeModel({ kind: 'full', name: 'light', input: SIZE, handsOver: { model: 'original', atFrame: 3 } }),
    original: createFakeModel({ kind: 'ellipse', name: 'original', input: SIZE }),
  };
  await runEngine(
    { inputPath, outputPath: join(dir(), `${name}.webm`), model: 'light', outputFormat: 'webm', background: { type: 'transparent' } },
    { loadModel: async (model: ModelName) => fakes[model as 'light' | 'original'], cacheDir: dir(), workDir: dir() },
  );
  return [fakes.light.sessions[0].options, fakes.original.sessions[0].options];
}

describe('the picture between bars, found on the first frame', () => {
  it("is given to every session of a video with bars (a phone's upright picture in a landscape frame), and to none without", async () => {
    const barred = join(dir(), 'phone.mp4');
    await ffmpeg(['-i', MEDIA.portraitPan, '-frames:v', '12', '-vf', 'crop=202:360,pad=640:360:219:0:black', '-c:v', 'libx264', '-crf', '18', '-pix_fmt', 'yuv420p', barred]);
    for (const options of await sessionOptionsFor(barred, 'phone')) {
      expect(options.picture?.x0).toBeCloseTo(219 / 640, 1);
      expect(options.picture?.x1).toBeCloseTo(421 / 640, 1);
      expect([options.picture?.y0, options.picture?.y1]).toEqual([0, 1]);
    }
    for (const options of await sessionOptionsFor(MEDIA.portraitPan, 'plain')) expect(options.picture).toBeUndefined();
  }, 120_000);
});
