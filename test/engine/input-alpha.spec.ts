/**
 * A video with an alpha of its own keeps it: the output's alpha is the input's times the matte, so
 * what the input leaves transparent stays transparent whatever the model sees there. Through the
 * real engine and ffmpeg with a test-double model (an ellipse on the left of the frame, across its
 * middle row), on inputs whose top half is transparent: VP9 and VP8 with alpha and ProRes 4444, to every
 * format with alpha and over a colour.
 */
import { join } from 'node:path';
import { runEngine } from '../../src/engine/engine';
import { EngineRequest, OutputFormat } from '../../src/engine/types';
import { createFakeModel } from './support/fake-model';
import { alphaAt, decodeAnimatedRgba, decodePngRgba, decodeVideoRgba, DecodedFrames, ffmpeg, readZipEntries, rgbAt } from './support/media-tools';
import { temporaryDirectory } from '../support/temporary-directory';

const dir = temporaryDirectory('engine-input-alpha-');
const WIDTH = 320;
const HEIGHT = 180;
/** the fake model's ellipse: centre (W/6, H/2), radii W/6 and H/3 */
const INSIDE_TOP = { x: 53, y: 60 };
const INSIDE_BOTTOM = { x: 53, y: 120 };
const OUTSIDE_BOTTOM = { x: 240, y: 120 };
const GREEN = [40, 180, 60] as const;

/** testsrc2 with its top half transparent */
const TRANSPARENT_TOP = `testsrc2=size=${WIDTH}x${HEIGHT}:rate=25:duration=0.4,format=rgba,geq=r='r(X,Y)':g='g(X,Y)':b='b(X,Y)':a='if(lt(Y,H/2),0,255)'`;
const INPUTS = {
  'VP9 with alpha': { file: 'alpha.webm', args: ['-c:v', 'libvpx-vp9', '-pix_fmt', 'yuva420p', '-auto-alt-ref', '0', '-b:v', '2M'] },
  // ffmpeg's own VP8 decoder drops the alpha: such a WebM came out opaque
  'VP8 with alpha': { file: 'alpha-vp8.webm', args: ['-c:v', 'libvpx', '-pix_fmt', 'yuva420p', '-auto-alt-ref', '0', '-b:v', '2M'] },
  'ProRes 4444': { file: 'alpha.mov', args: ['-c:v', 'prores_ks', '-profile:v', '4', '-pix_fmt', 'yuva444p10le'] },
};

describe.each(Object.entries(INPUTS))('a %s input with a transparent top half', (_label, input) => {
  let inputPath: string;

  beforeAll(async () => {
    inputPath = join(dir(), input.file);
    await ffmpeg(['-f', 'lavfi', '-i', TRANSPARENT_TOP, ...input.args, inputPath]);
  });

  async function run(outputFormat: OutputFormat, background: EngineRequest['background'], name: string): Promise<string> {
    const outputPath = join(dir(), name);
    const model = createFakeModel({ kind: 'ellipse', name: 'light', input: { width: 160, height: 90 }, step: 0 });
    const result = await runEngine({ inputPath, outputPath, model: 'light', outputFormat, background }, { loadModel: async () => model, cacheDir: dir(), workDir: dir() }, () => undefined);
    expect(result.notes).toContainEqual(expect.stringMatching(/^input has an alpha channel of its own: /));
    return outputPath;
  }

  const expectAlphaKept = (frames: DecodedFrames) => {
    for (const frame of [0, frames.frames.length - 1]) {
      expect(alphaAt(frames, frame, INSIDE_TOP.x, INSIDE_TOP.y)).toBeLessThan(8); // the model's subject, where the input is transparent
      expect(alphaAt(frames, frame, INSIDE_BOTTOM.x, INSIDE_BOTTOM.y)).toBeGreaterThan(247);
      expect(alphaAt(frames, frame, OUTSIDE_BOTTOM.x, OUTSIDE_BOTTOM.y)).toBeLessThan(8);
    }
  };

  it.each([
    ['webm', 'out.webm', true],
    ['mov', 'out.mov', false],
  ] as const)('on a transparent background, %s: transparent where the input is, the matte elsewhere', async (format, name, vp9Alpha) => {
    const frames = await decodeVideoRgba(await run(format, { type: 'transparent' }, name), WIDTH, HEIGHT, vp9Alpha);
    expect(frames.frames).toHaveLength(10);
    expectAlphaKept(frames);
  });

  it.each(['webp', 'gif'] as const)('on a transparent background, %s: the same', async (format) => {
    const frames = await decodeAnimatedRgba(await run(format, { type: 'transparent' }, `out.${format}`));
    expect(frames.pages).toBe(10);
    expectAlphaKept(frames);
  });

  it('on a transparent background, PNG frames: the same', async () => {
    const entries = [...(await readZipEntries(await run('png_sequence', { type: 'transparent' }, 'out.zip'))).values()];
    expect(entries).toHaveLength(10);
    const pngs = await Promise.all(entries.map((png) => decodePngRgba(png)));
    expectAlphaKept({ width: WIDTH, height: HEIGHT, frames: pngs.map((png) => png.data) });
  });

  it('on a colour: the colour shows where the input is transparent', async () => {
    const frames = await decodeVideoRgba(await run('mp4', { type: 'color', rgb: [...GREEN] }, 'out.mp4'), WIDTH, HEIGHT);
    const top = rgbAt(frames, 0, INSIDE_TOP.x, INSIDE_TOP.y);
    top.forEach((value, channel) => expect(Math.abs(value - GREEN[channel])).toBeLessThanOrEqual(12));
    const bottom = rgbAt(frames, 0, INSIDE_BOTTOM.x, INSIDE_BOTTOM.y);
    expect(bottom.some((value, channel) => Math.abs(value - GREEN[channel]) > 40)).toBe(true);
  });
});
