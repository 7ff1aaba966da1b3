/**
 * The engine end to end with the test-double model, continued from formats.spec.ts: composition and
 * backgrounds, frame alignment (variable frame rate, rotation), refusals and cancel.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { runEngine } from '../../src/engine/engine';
import { createFakeModel } from './support/fake-model';
import { formatRunner, PREVIEW_FRAMES, Run } from './support/format-run';
import { MEDIA } from './support/media';
import {
  decodePngRgba,
  decodeVideoRgba,
  ffmpeg,
  probeStreams,
  readZipEntries,
  rgbAt,
} from './support/media-tools';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engine-formats-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
const run = formatRunner(() => dir);

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

  it('keeps mattes on their frames when the session takes several frames at once and finishes them out of order', async () => {
    const box = await movingBox('in-flight.mp4');
    const { result, sessions } = await expectAlphaFollowsContent(box, 160, 96, 3);
    expect(result.frames).toBe(30);
    expect(sessions[0].mostInFlight).toBe(3);
  });

  /**
   * A feathered white box over black, its matte the luma: each gray pixel is a = luma / 255 of white
   * over black, so over a blue background the true red channel is the input's own luma. The soft
   * edge coloured with the estimated foreground comes close to it; the source's pixels (gray, the
   * old black mixed in) fall short by a (1 - a) 255. The estimate is made from each matte's own
   * frame while the session holds three frames at once and finishes them out of order: a frame
   * off, the box has moved 4 px across a ramp about 8 px wide.
   */
  it("colours the soft edge with the foreground estimated from each matte's own frame", async () => {
    const box = await movingBox('feathered.mp4', ',gblur=sigma=2');
    const rgb = await ffmpeg(['-i', box, '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1']);
    const pixels = 160 * 96;
    const redError = async (edgeColour: 'estimated' | 'source'): Promise<number> => {
      const outputPath = join(dir, `edge-${edgeColour}.zip`);
      const fake = createFakeModel({ kind: 'luma', input: { width: 160, height: 96 }, framesInFlight: 3 });
      const request = { inputPath: box, outputPath, model: 'light' as const, outputFormat: 'png_sequence' as const, background: { type: 'color' as const, rgb: [0, 0, 255] as [number, number, number] } };
      await runEngine(request, { loadModel: async () => fake, cacheDir: dir, workDir: dir, edgeColour });
      let sum = 0;
      let count = 0;
      for (const [frame, png] of [...(await readZipEntries(outputPath)).values()].entries()) {
        const image = await decodePngRgba(png);
        for (let p = 0; p < pixels; p++) {
          const luma = rgb[(frame * pixels + p) * 3];
          if (luma < 24 || luma > 232) continue;
          sum += Math.abs(image.data[p * 4] - luma);
          count++;
        }
      }
      expect(count).toBeGreaterThan(1000);
      return sum / count;
    };
    const source = await redError('source');
    const estimated = await redError('estimated');
    expect(source).toBeGreaterThan(30); // a (1 - a) 255 over the band
    expect(estimated).toBeLessThan(source / 2.5); // measured 42.7 and 13.7; 44.2 with the frame before each matte's
  });

  it('keeps mattes on their frames for variable frame rate input', async () => {
    // every third frame dropped: gaps in the timestamps, an average rate of 16.7 fps
    const vfr = await movingBox('vfr.mp4', ',select=not(eq(mod(n\\,3)\\,2))', ['-vsync', 'vfr']);
    const { streams } = await probeStreams(vfr);
    expect(streams[0].nb_read_frames).toBe('20');
    const { result } = await expectAlphaFollowsContent(vfr, 160, 96);
    expect(result.frames).toBeGreaterThan(15);
  });

  it('honours rotation metadata: output upright at the display size, mattes aligned', async () => {
    const upright = await movingBox('upright.mp4');
    const rotated = join(dir, 'rotated.mp4');
    await ffmpeg(['-i', upright, '-c', 'copy', '-metadata:s:v:0', 'rotate=90', '-y', rotated]);
    const { result } = await expectAlphaFollowsContent(rotated, 96, 160);
    expect([result.width, result.height]).toEqual([96, 160]);
    expect(result.notes.some((note) => note.includes('rotated'))).toBe(true);
  });

  it('writes non-square pixels at their display size in square ones, mattes aligned', async () => {
    // 160x96 squeezed into 120x96 pixels 4:3 wide, as HDV keeps 1920x1080 in 1440x1080
    const path = join(dir, 'anamorphic.mp4');
    await ffmpeg(['-i', await movingBox('anamorphic-source.mp4'), '-vf', 'scale=120:96,setsar=4/3', '-c:v', 'libx264', '-pix_fmt', 'yuv444p', '-y', path]);
    expect((await probeStreams(path)).streams[0]).toMatchObject({ width: 120, height: 96, sample_aspect_ratio: '4:3' });
    const { result } = await expectAlphaFollowsContent(path, 160, 96);
    expect([result.width, result.height]).toEqual([160, 96]);
    const webm = await run('webm', { inputPath: path, previewDuration: undefined });
    expect((await probeStreams(webm.outputPath)).streams[0]).toMatchObject({ width: 160, height: 96, sample_aspect_ratio: '1:1' });
  });

  it("reads a browser's recording: a live WebM with no duration, measured from its packets", async () => {
    // MediaRecorder's WebM, as ffmpeg's live mode writes it: no duration, no index
    const path = join(dir, 'recorded.webm');
    await ffmpeg(['-i', await movingBox('recorded-source.mp4'), '-c:v', 'libvpx', '-b:v', '1M', '-live', '1', '-f', 'webm', '-y', path]);
    expect((await probeStreams(path)).format.duration).toBeUndefined();
    const { result } = await expectAlphaFollowsContent(path, 160, 96);
    expect(result.frames).toBe(30);
    expect(result.durationSeconds).toBeCloseTo(1.2, 5);
  });

  it('deinterlaces interlaced input: no combed edges in the output, mattes aligned', async () => {
    // a white box moving 4 px a field, 50 fields a second woven into 25 top-field-first frames
    const path = join(dir, 'interlaced.mp4');
    await ffmpeg([
      '-f', 'lavfi', '-i', 'color=black:s=160x96:r=50:d=1.2',
      '-f', 'lavfi', '-i', 'color=white:s=24x24:r=50:d=1.2',
      '-filter_complex', '[0:v][1:v]overlay=x=4+t*200:y=36:shortest=1,tinterlace=mode=interleave_top,setfield=tff',
      '-c:v', 'libx264', '-flags', '+ildct+ilme', '-x264opts', 'tff=1', '-pix_fmt', 'yuv444p', '-y', path,
    ]);
    expect((await probeStreams(path)).streams[0]).toMatchObject({ field_order: 'tt' });
    const { result, outputPath } = await expectAlphaFollowsContent(path, 160, 96);
    expect(result.notes).toContain('input is interlaced: deinterlaced, a frame for each frame');
    // combed: inside the box's rows, a pixel and the one below it from the other field differ by
    // most of the range at each vertical edge (about 4 px x 22 rows x 2 edges a frame)
    let combed = 0;
    for (const png of [...(await readZipEntries(outputPath)).values()].slice(2)) {
      const { data } = await decodePngRgba(png);
      for (let y = 38; y < 58; y++) for (let x = 0; x < 160; x++) if (Math.abs(data[(y * 160 + x) * 4] - data[((y + 1) * 160 + x) * 4]) > 128) combed++;
    }
    expect(combed).toBeLessThan(20);
  });

  it("reads a phone's footage: HEVC Main 10, HLG-tagged, in a QuickTime file turned a quarter", async () => {
    const upright = join(dir, 'phone-upright.mov');
    await ffmpeg([
      '-i', await movingBox('phone-source.mp4'),
      '-c:v', 'libx265', '-pix_fmt', 'yuv420p10le', '-x265-params', 'log-level=error:colorprim=bt2020:transfer=arib-std-b67:colormatrix=bt2020nc',
      '-color_primaries', 'bt2020', '-color_trc', 'arib-std-b67', '-colorspace', 'bt2020nc', '-y', upright,
    ]);
    // this ffmpeg writes the rotation only when it copies the stream
    const path = join(dir, 'phone.mov');
    await ffmpeg(['-i', upright, '-c', 'copy', '-tag:v', 'hvc1', '-metadata:s:v:0', 'rotate=270', '-y', path]);
    expect((await probeStreams(path)).streams[0]).toMatchObject({ codec_name: 'hevc', pix_fmt: 'yuv420p10le', color_transfer: 'arib-std-b67' });
    const { result } = await expectAlphaFollowsContent(path, 96, 160);
    expect([result.width, result.height, result.frames]).toEqual([96, 160, 30]);
  });
});

describe('HDR input', () => {
  /**
   * White, dark gray (0x40) and red patches of BT.709 made HDR as a camera records them: BT.2020,
   * 10-bit HEVC, `transfer`, SDR's white at the 203 nits of HDR's reference white (ITU-R BT.2408).
   * Read as SDR they come out as PQ white 146, HLG white 189, red (134, 82, 55) and (169, 72, 38).
   */
  async function hdrPatches(transfer: 'smpte2084' | 'arib-std-b67'): Promise<string> {
    const path = join(dir, `hdr-${transfer}.mp4`);
    const patch = (colour: string) => ['-f', 'lavfi', '-i', `color=c=${colour}:s=64x64:r=25:d=0.4,format=rgb24`];
    await ffmpeg([
      ...patch('white'), ...patch('0x404040'), ...patch('red'),
      '-filter_complex', [
        '[0][1][2]hstack=3',
        'setparams=color_primaries=bt709:color_trc=bt709:colorspace=bt709:range=tv',
        'zscale=t=linear:npl=203', 'format=gbrpf32le', `zscale=p=2020:t=${transfer}:m=2020_ncl:r=tv:npl=203`, 'format=yuv420p10le',
      ].join(','),
      '-c:v', 'libx265', '-x265-params', `log-level=error:colorprim=bt2020:transfer=${transfer}:colormatrix=bt2020nc`,
      '-color_primaries', 'bt2020', '-color_trc', transfer, '-colorspace', 'bt2020nc', '-y', path,
    ]);
    return path;
  }

  it.each([
    ['PQ', 'smpte2084'],
    ['HLG', 'arib-std-b67'],
  ] as const)('tone-maps %s to SDR BT.709 for the model and the output alike', async (name, transfer) => {
    // the luma model's alpha is the luma of the frame it was given: what the model saw
    const { result, outputPath } = await run('png_sequence', { inputPath: await hdrPatches(transfer), previewDuration: undefined }, { kind: 'luma', input: { width: 192, height: 64 } });
    expect(result.notes).toContain(`input is HDR (${name}): tone-mapped to SDR (BT.709)`);
    const image = await decodePngRgba([...(await readZipEntries(outputPath)).values()][5]);
    const pixel = (x: number) => [...image.data.subarray((32 * 192 + x) * 4, (32 * 192 + x) * 4 + 4)];
    const [white, gray, red] = [pixel(32), pixel(96), pixel(160)];
    expect(Math.min(...white)).toBeGreaterThan(175); // alpha too: the model saw it bright
    expect(Math.max(...white.slice(0, 3)) - Math.min(...white.slice(0, 3))).toBeLessThan(8);
    expect(gray.slice(0, 3).every((v) => v > 40 && v < 90)).toBe(true);
    expect(red[0]).toBeGreaterThan(160);
    expect(Math.max(red[1], red[2])).toBeLessThan(30);
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
