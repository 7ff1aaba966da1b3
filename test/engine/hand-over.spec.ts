/**
 * A session that hands the video to another model (HandOver: `light` and `human` seeing no one),
 * through the real engine with test-double models: the video starts again with that model, the
 * output is that model's alone, progress never goes back, and nothing of the first try is left.
 * The real models' hand-over: light-e2e.spec.ts.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { runEngine } from '../../src/engine/engine';
import { EngineProgress, EngineRequest, ModelName } from '../../src/engine/types';
import { createFakeModel, ellipseMatte, FakeModel } from './support/fake-model';
import { MEDIA } from './support/media';
import { decodeVideoRgba, ffmpeg } from './support/media-tools';
import { temporaryDirectory } from '../support/temporary-directory';

const dir = temporaryDirectory('engine-hand-over-');

const SIZE = { width: 160, height: 90 };

/** `light` hands over at `atFrame`; `original` draws the moving ellipse (and, with `onward`, hands over too) */
function models(atFrame: number, onward?: ModelName): Record<'light' | 'original', FakeModel> {
  return {
    light: createFakeModel({ kind: 'full', name: 'light', input: SIZE, handsOver: { model: 'original', atFrame } }),
    original: createFakeModel({ kind: 'ellipse', name: 'original', input: SIZE, handsOver: onward && { model: onward, atFrame: 2 } }),
  };
}

async function run(name: string, fakes: Record<'light' | 'original', FakeModel>, request: Partial<EngineRequest> = {}) {
  const outputPath = join(dir(), `${name}.webm`);
  const loaded: ModelName[] = [];
  const progress: EngineProgress[] = [];
  const result = runEngine(
    { inputPath: MEDIA.portraitPan, outputPath, model: 'light', outputFormat: 'webm', background: { type: 'transparent' }, ...request },
    {
      loadModel: async (model) => {
        loaded.push(model);
        return fakes[model as 'light' | 'original'];
      },
      cacheDir: dir(),
      workDir: dir(),
    },
    (update) => progress.push(update),
  );
  return { result, outputPath, loaded, progress };
}

const leftovers = async (name: string) => (await readdir(dir())).filter((file) => file.includes(name) && file !== `${name}.webm`);

describe('a video handed to another model by its session', () => {
  it.each([
    ['mid-video', 5],
    ['at the end, before the deadline', 100],
  ])('%s: starts again with that model, whose mattes alone are written, and says so', async (name, atFrame) => {
    const fakes = models(atFrame);
    const { result, outputPath, loaded, progress } = await run(`handed-${atFrame}`, fakes, { previewDuration: 1 });
    await expect(result).resolves.toMatchObject({ modelUsed: 'original', frames: 25, notes: ['the fake hands the video to original'] });
    expect(loaded).toEqual(['light', 'original']);
    expect(fakes.light.sessions[0].closed).toBe(true);
    expect(fakes.light.sessions[0].framesSeen.length).toBe(Math.min(atFrame + 1, 25));
    expect(fakes.original.sessions[0].framesSeen).toEqual(Array.from({ length: 25 }, (_, i) => i));

    const decoded = await decodeVideoRgba(outputPath, 640, 360, true);
    expect(decoded.frames).toHaveLength(25);
    // `light` matted every pixel opaque; the ellipse leaves the frame's right side transparent
    for (const [index, frame] of decoded.frames.entries()) {
      const ellipse = ellipseMatte(index, SIZE, 2).data;
      const column = 150; // of 160: right of every ellipse in the first 25 frames
      expect(ellipse[45 * 160 + column]).toBe(0);
      expect(frame[(180 * 640 + column * 4) * 4 + 3]).toBeLessThan(16);
    }
    const done = progress.map((update) => update.framesDone);
    expect(done).toEqual([...done].sort((a, b) => a - b));
    expect(done.at(-1)).toBe(25);
    expect(await leftovers(`handed-${atFrame}`)).toEqual([]);
    expect((await readdir(dir())).filter((file) => file.startsWith('backdrop-engine-'))).toEqual([]);
  });

  it('hands over in a chunk\'s pre-roll as in its frames (the warm-up is not "bad input")', async () => {
    const fakes = models(0);
    // the pre-roll starts at the video's start: the chunk's own session decides
    const { result } = await run('chunk', fakes, { segment: { startSeconds: 0.4, endSeconds: 0.8, prerollSeconds: 0.4 } });
    await expect(result).resolves.toMatchObject({ modelUsed: 'original', frames: 10 });
    expect(fakes.light.sessions.map((session) => session.framesSeen)).toEqual([[0]]);
    // the model handed to warms up on the pre-roll too
    expect(fakes.original.sessions[0].framesSeen).toHaveLength(20);
  });

  describe('a later chunk of a long job decides from the video\'s start, as one run over the whole video does', () => {
    /** light keeps the video once it sees a bright frame, and hands it over at its 5th frame otherwise */
    const keptByBright = () => ({
      light: createFakeModel({ kind: 'full', name: 'light', input: SIZE, handsOver: { model: 'original', atFrame: 5, keptByBright: true } }),
      original: createFakeModel({ kind: 'ellipse', name: 'original', input: SIZE }),
    });
    /** 1 s of one colour, then 2 s of the other, at 25 fps */
    const twoScenes = async (name: string, first: string, then: string) => {
      const path = join(dir(), `${name}.mp4`);
      const scene = (colour: string, seconds: number) => ['-f', 'lavfi', '-i', `color=c=${colour}:s=160x90:r=25:d=${seconds}`];
      await ffmpeg(['-y', ...scene(first, 1), ...scene(then, 2), '-filter_complex', '[0:v][1:v]concat=n=2:v=1', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', path]);
      return path;
    };
    const lastSecond = { startSeconds: 2, prerollSeconds: 0.4 };

    it('keeps the model where the video\'s start kept it, though the chunk\'s own frames show no one', async () => {
      const fakes = keptByBright();
      const inputPath = await twoScenes('bright-then-dark', 'white', 'black');
      const { result } = await run('kept-chunk', fakes, { inputPath, segment: lastSecond });
      await expect(result).resolves.toMatchObject({ modelUsed: 'light', frames: 25, notes: [] });
      const [decider, chunk] = fakes.light.sessions;
      // the video's first frame decided, and its decoder stopped there
      expect(decider.framesSeen).toEqual([0]);
      expect(decider.closed).toBe(true);
      expect(chunk.options.keepVideo).toBe(true);
      expect(chunk.framesSeen).toHaveLength(10 + 25);
      expect(fakes.original.sessions).toHaveLength(0);
    });

    it('hands over where the video\'s start showed no one, though the chunk\'s own frames show someone', async () => {
      const fakes = keptByBright();
      const inputPath = await twoScenes('dark-then-bright', 'black', 'white');
      const { result } = await run('handed-chunk', fakes, { inputPath, segment: lastSecond });
      await expect(result).resolves.toMatchObject({ modelUsed: 'original', frames: 25, notes: ['the fake hands the video to original'] });
      expect(fakes.light.sessions.map((session) => session.framesSeen)).toEqual([[0, 1, 2, 3, 4, 5]]);
      // original never hands over: it is not asked to decide, and warms up on the chunk's pre-roll
      expect(fakes.original.sessions).toHaveLength(1);
      expect(fakes.original.sessions[0].framesSeen).toHaveLength(10 + 25);
    });
  });

  it('refuses a second hand-over (model_unavailable) and leaves no output', async () => {
    const { result } = await run('twice', models(3, 'light'), { previewDuration: 1 });
    await expect(result).rejects.toMatchObject({ code: 'model_unavailable', message: 'model original handed the video on to light' });
    expect((await readdir(dir())).filter((file) => file.includes('twice'))).toEqual([]);
  });
});
