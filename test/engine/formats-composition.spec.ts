/**
 * The engine end to end with the test-double model, continued from formats.spec.ts: composition and
 * backgrounds, frame alignment (frames in flight, variable frame rate, rotation), refusals and cancel.
 * The kinds of input footage comes in: input-kinds.spec.ts.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { runEngine } from '../../src/engine/engine';
import { probe } from '../../src/engine/media/input-gate';
import { OutputFormat } from '../../src/engine/types';
import { createFakeModel, ellipseAt } from './support/fake-model';
import { alignmentChecks, formatRunner, MATTE, PREVIEW_FRAMES, STEP } from './support/format-run';
import { MEDIA } from './support/media';
import {
  decodeAnimatedRgba,
  decodePngRgba,
  decodeVideoRgba,
  ffmpeg,
  probeStreams,
  readZipEntries,
  rgbAt,
} from './support/media-tools';
import { temporaryDirectory } from '../support/temporary-directory';

const dir = temporaryDirectory('engine-formats-');
const run = formatRunner(dir);
const { movingBox, expectAlphaFollowsContent } = alignmentChecks(dir, run);

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
    const imagePath = join(dir(), 'blue.png');
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

  it("turns a phone's JPEG stored sideways (EXIF orientation 6) upright, as viewers show it", async () => {
    // stored 200x100, red left and blue right: upright it is 100x200, red above blue
    const halves = Buffer.alloc(200 * 100 * 3);
    for (let i = 0; i < 200 * 100; i++) halves.set(i % 200 < 100 ? [255, 0, 0] : [0, 0, 255], i * 3);
    const imagePath = join(dir(), 'sideways.jpg');
    await sharp(halves, { raw: { width: 200, height: 100, channels: 3 } }).jpeg({ quality: 95 }).withMetadata({ orientation: 6 }).toFile(imagePath);
    const { outputPath } = await run('png_sequence', { background: { type: 'image', imagePath }, composition: { canvas: { width: 320, height: 320 }, foreground: { anchor: 'center', scale: 0.1, offset: { x: 0, y: 0 } } } });
    const frame = await decodePngRgba([...(await readZipEntries(outputPath)).values()][0]);
    const rgb = (x: number, y: number) => [...frame.data.subarray((y * 320 + x) * 4, (y * 320 + x) * 4 + 3)];
    expect(rgb(160, 20)[0]).toBeGreaterThan(200); // red above
    expect(rgb(160, 300)[2]).toBeGreaterThan(200); // blue below
  });

  it('draws the transparent parts of a PNG background over black, not in the colours hidden there', async () => {
    const pixels = Buffer.alloc(64 * 64 * 4);
    // left half: magenta at alpha 0; right half: opaque green
    for (let i = 0; i < 64 * 64; i++) pixels.set(i % 64 < 32 ? [255, 0, 255, 0] : [0, 255, 0, 255], i * 4);
    const imagePath = join(dir(), 'holes.png');
    await sharp(pixels, { raw: { width: 64, height: 64, channels: 4 } }).png().toFile(imagePath);
    const { outputPath } = await run('mov', { background: { type: 'image', imagePath }, composition: { canvas: { width: 320, height: 320 }, foreground: { anchor: 'center', scale: 0.1, offset: { x: 0, y: 0 } } } });
    const decoded = await decodeVideoRgba(outputPath, 320, 320);
    expect(Math.max(...rgbAt(decoded, 0, 20, 160))).toBeLessThan(20);
    expect(rgbAt(decoded, 0, 300, 160)[1]).toBeGreaterThan(200);
  });

  it('handles odd sizes: grown to even for H.264, kept for VP9', async () => {
    const odd = join(dir(), 'odd.mp4');
    await ffmpeg(['-f', 'lavfi', '-i', 'testsrc=s=201x113:r=25:d=0.4', '-c:v', 'libx264', '-pix_fmt', 'yuv444p', '-y', odd]);
    const mp4 = await run('mp4', { inputPath: odd, previewDuration: undefined, background: { type: 'color', rgb: [255, 0, 0] } });
    expect([mp4.result.width, mp4.result.height, mp4.result.frames]).toEqual([202, 114, 10]);
    expect((await probeStreams(mp4.outputPath)).streams[0]).toMatchObject({ width: 202, height: 114 });
    const webm = await run('webm', { inputPath: odd, previewDuration: undefined });
    expect((await probeStreams(webm.outputPath)).streams[0]).toMatchObject({ width: 201, height: 113, nb_read_frames: '10' });
  });
});

describe('frame alignment', () => {
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
      const outputPath = join(dir(), `edge-${edgeColour}.zip`);
      const fake = createFakeModel({ kind: 'luma', input: { width: 160, height: 96 }, framesInFlight: 3 });
      const request = { inputPath: box, outputPath, model: 'light' as const, outputFormat: 'png_sequence' as const, background: { type: 'color' as const, rgb: [0, 0, 255] as [number, number, number] } };
      await runEngine(request, { loadModel: async () => fake, cacheDir: dir(), workDir: dir(), edgeColour });
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

  /**
   * A phone's clip with dropped frames: on a 30 fps grid in a 90 kHz timescale, one frame in seven
   * missing. The transparent webm's colour, encoded apart from its alpha, took a frame more than the
   * model's decoder gave (ffmpeg's constant-rate output duplicated one) and the job failed.
   */
  it('a transparent webm of dropped-frame footage has as many frames as its mattes (it failed: colour and alpha differed in length)', async () => {
    const [steady, dropped] = [join(dir(), 'steady.mkv'), join(dir(), 'dropped.mp4')];
    await ffmpeg(['-f', 'lavfi', '-i', 'color=black:s=160x96:r=30:d=1', '-f', 'lavfi', '-i', 'color=white:s=24x24:r=30:d=1', '-filter_complex', '[0:v][1:v]overlay=x=4+t*100:y=36:shortest=1', '-c:v', 'ffv1', '-y', steady]);
    await ffmpeg(['-i', steady, '-vf', "select='not(eq(mod(n\\,7)\\,3))',setpts='floor(N*7/6)/30/TB'", '-vsync', 'vfr', '-video_track_timescale', '90000', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv444p', '-y', dropped]);
    expect((await probeStreams(dropped)).streams[0]).toMatchObject({ r_frame_rate: '30/1', avg_frame_rate: '26/1', nb_read_frames: '26' });
    const png = await run('png_sequence', { inputPath: dropped, previewDuration: undefined }, { kind: 'bright', input: { width: 160, height: 96 } });
    for (const background of [{ type: 'transparent' as const }, { type: 'color' as const, rgb: [0, 0, 255] as [number, number, number] }]) {
      const webm = await run('webm', { inputPath: dropped, previewDuration: undefined, background }, { kind: 'bright', input: { width: 160, height: 96 } });
      expect(webm.result.frames).toBe(png.result.frames);
      expect((await probeStreams(webm.outputPath)).streams[0].nb_read_frames).toBe(String(png.result.frames));
    }
  });

  /** where the white box stands on row 40 of each frame of a PNG sequence, left edge (-1: nowhere) */
  const boxPlaces = async (zipPath: string): Promise<number[]> => {
    const boxAt = async (png: Buffer) => {
      const { data, width, channels } = await decodePngRgba(png);
      const row = 40 * width * channels;
      for (let x = 0; x < width; x++) if (data[row + x * channels] > 128) return x;
      return -1;
    };
    return Promise.all([...(await readZipEntries(zipPath)).values()].map(boxAt));
  };

  it('reads a phone clip with dropped frames at its nominal rate: every stored frame is shown, none skipped (at its average rate motion juddered)', async () => {
    const [steady, dropped] = [join(dir(), 'steady-nominal.mkv'), join(dir(), 'dropped-nominal.mp4')];
    // a box that moves 3 px a frame on a 30 fps grid, one frame in seven missing: 30 fps nominal, 26 on average
    await ffmpeg(['-f', 'lavfi', '-i', 'color=black:s=160x96:r=30:d=1', '-f', 'lavfi', '-i', 'color=white:s=8x8:r=30:d=1', '-filter_complex', '[0:v][1:v]overlay=x=4+n*3:y=36:shortest=1', '-c:v', 'ffv1', '-y', steady]);
    await ffmpeg(['-i', steady, '-vf', "select='not(eq(mod(n\\,7)\\,3))',setpts='floor(N*7/6)/30/TB'", '-vsync', 'vfr', '-video_track_timescale', '90000', '-c:v', 'libx264', '-qp', '0', '-pix_fmt', 'yuv444p', '-y', dropped]);
    expect((await probeStreams(dropped)).streams[0]).toMatchObject({ r_frame_rate: '30/1', avg_frame_rate: '26/1' });
    const { result, outputPath } = await run('png_sequence', { inputPath: dropped, previewDuration: undefined }, { kind: 'bright', input: { width: 160, height: 96 } });
    expect(result.frames).toBe(30);
    // the stored frames' 26 places of the box, each at least once
    expect(new Set(await boxPlaces(outputPath)).size).toBe(26);
  });

  it('reads a clip held on one frame for seconds at its nominal rate: every moving frame is shown, the held one for its 3 s (at its average of 12 fps half the moving frames were lost)', async () => {
    const [steady, held] = [join(dir(), 'steady-held.mkv'), join(dir(), 'held.mp4')];
    // a box that moves 2 px a frame at 30 fps, 61 frames; frame 30 held from 1 s to 4 s
    await ffmpeg(['-f', 'lavfi', '-i', 'color=black:s=160x96:r=30', '-f', 'lavfi', '-i', 'color=white:s=8x8:r=30', '-filter_complex', '[0:v][1:v]overlay=x=4+n*2:y=36', '-frames:v', '61', '-c:v', 'ffv1', '-y', steady]);
    await ffmpeg(['-i', steady, '-vf', "setpts='if(lte(N,30),N/30,(N-30)/30+4)/TB'", '-vsync', 'vfr', '-video_track_timescale', '30000', '-c:v', 'libx264', '-qp', '0', '-pix_fmt', 'yuv444p', '-y', held]);
    expect((await probeStreams(held)).streams[0]).toMatchObject({ r_frame_rate: '30/1', avg_frame_rate: '1830/151', nb_read_frames: '61' });
    const { result, outputPath } = await run('png_sequence', { inputPath: held, previewDuration: undefined }, { kind: 'bright', input: { width: 160, height: 96 } });
    expect(result.frames).toBe(151);
    expect(new Set(await boxPlaces(outputPath)).size).toBe(61);
  });

  it('honours rotation metadata: output upright at the display size, mattes aligned', async () => {
    const upright = await movingBox('upright.mp4');
    const rotated = join(dir(), 'rotated.mp4');
    await ffmpeg(['-i', upright, '-c', 'copy', '-metadata:s:v:0', 'rotate=90', '-y', rotated]);
    const { result } = await expectAlphaFollowsContent(rotated, 96, 160);
    expect([result.width, result.height]).toEqual([96, 160]);
    expect(result.notes.some((note) => note.includes('rotated'))).toBe(true);
  });

  it('writes a picture tilted by 60 degrees at its own size, as ffmpeg turns it (taken for a quarter turn, the job failed output_failed)', async () => {
    const tilted = join(dir(), 'tilted.mp4');
    await ffmpeg(['-i', await movingBox('upright-for-tilt.mp4'), '-c', 'copy', '-metadata:s:v:0', 'rotate=60', '-y', tilted]);
    const { result, outputPath } = await run('mp4', { inputPath: tilted, previewDuration: undefined, background: { type: 'color', rgb: [0, 0, 255] } });
    expect([result.width, result.height]).toEqual([160, 96]);
    expect((await probeStreams(outputPath)).streams[0]).toMatchObject({ width: 160, height: 96 });
  });
});

describe('a canvas of odd sides', () => {
  const composition = { canvas: { width: 301, height: 201 }, foreground: { anchor: 'center' as const, scale: 0.5, offset: { x: 0, y: 0 } } };

  it('webm and webp keep it whole, transparent or over a colour (a 4:2:0 canvas lost a row and a column: 300x200)', async () => {
    for (const background of [{ type: 'transparent' as const }, { type: 'color' as const, rgb: [0, 0, 255] as [number, number, number] }]) {
      const webm = await run('webm', { composition, background });
      expect((await probeStreams(webm.outputPath)).streams[0]).toMatchObject({ width: 301, height: 201 });
      const webp = await run('webp', { composition, background });
      expect(await sharp(webp.outputPath).metadata()).toMatchObject({ width: 301, height: 201 });
    }
  });
});

describe("colour on HD footage (BT.709), decoded by each output's own tag as players do", () => {
  const GREEN: [number, number, number] = [9, 162, 70];
  const SUBJECT: [number, number, number] = [200, 60, 40];
  const near = (actual: number[], expected: number[], tolerance: number) => expect(Math.max(...actual.map((value, i) => Math.abs(value - expected[i])))).toBeLessThanOrEqual(tolerance);
  // the test double's matte on the first frame: an ellipse whose centre is opaque
  const { centerX, centerY } = ellipseAt(0, MATTE, STEP, 1280 / MATTE.width);
  const subjectAt = [Math.round(centerX), Math.round(centerY)] as const;
  let hd: string;

  beforeAll(async () => {
    // one colour all over, its YCbCr written with BT.709 and tagged so
    hd = join(dir(), 'hd-709.mp4');
    await ffmpeg(['-f', 'lavfi', '-i', 'color=c=0xC83C28:s=1280x720:r=25:d=0.2,format=rgb24,scale=out_color_matrix=bt709:out_range=tv,format=yuv420p', '-colorspace', 'bt709', '-c:v', 'libx264', '-crf', '12', '-y', hd]);
  });

  it.each<OutputFormat>(['mp4', 'mov', 'webm'])('%s: the green background is #09A246 beside a foreground of the colour the source shows (the background was drawn with BT.601: 0,140,66)', async (format) => {
    const { outputPath } = await run(format, { inputPath: hd, previewDuration: 0.12, background: { type: 'color', rgb: GREEN } });
    const decoded = await decodeVideoRgba(outputPath, 1280, 720, format === 'webm');
    near(rgbAt(decoded, 0, 1270, 10), GREEN, 4);
    near(rgbAt(decoded, 0, ...subjectAt), SUBJECT, 4);
  });

  it.each<OutputFormat>(['mp4', 'mov'])('%s says its primaries and transfer with its matrix (they were "unspecified": editors flagged the clip)', async (format) => {
    const { outputPath } = await run(format, { inputPath: hd, previewDuration: 0.12 });
    expect((await probeStreams(outputPath)).streams[0]).toMatchObject({ color_space: 'bt709', color_primaries: 'bt709', color_transfer: 'bt709' });
  });

  describe('untagged, as most files are (players take HD for BT.709)', () => {
    let untagged: string;
    beforeAll(async () => {
      untagged = join(dir(), 'hd-untagged.mp4');
      await ffmpeg(['-i', hd, '-c', 'copy', '-bsf:v', 'h264_metadata=matrix_coefficients=2', '-y', untagged]);
      expect((await probeStreams(untagged)).streams[0].color_space).toBeUndefined();
    });

    it.each<OutputFormat>(['png_sequence', 'gif'])('%s: the foreground is the colour the source shows (it became RGB with BT.601: 186,46,41)', async (format) => {
      const { outputPath } = await run(format, { inputPath: untagged, previewDuration: 0.12 });
      const decoded = format === 'gif' ? await decodeAnimatedRgba(outputPath) : { width: 1280, height: 720, frames: [(await decodePngRgba([...(await readZipEntries(outputPath)).values()][0])).data] };
      near(rgbAt(decoded, 0, ...subjectAt), SUBJECT, format === 'gif' ? 12 : 4);
    });

    it('mp4 over a colour: the foreground, whose edge colour is estimated in RGB, keeps its colour (187,45,42)', async () => {
      const { outputPath } = await run('mp4', { inputPath: untagged, previewDuration: 0.12, background: { type: 'color', rgb: GREEN } });
      const decoded = await decodeVideoRgba(outputPath, 1280, 720);
      near(rgbAt(decoded, 0, ...subjectAt), SUBJECT, 4);
      near(rgbAt(decoded, 0, 1270, 10), GREEN, 4);
    });
  });

  it.each<OutputFormat>(['webm', 'mov'])('%s of an RGB source (QuickTime Animation): the foreground is written with the BT.709 its tag says (212,72,36 under that tag)', async (format) => {
    const rgb = join(dir(), 'hd-rgb.mov');
    await ffmpeg(['-f', 'lavfi', '-i', 'color=c=0xC83C28:s=1280x720:r=25:d=0.2', '-c:v', 'qtrle', '-pix_fmt', 'rgb24', '-y', rgb]);
    const { outputPath } = await run(format, { inputPath: rgb, previewDuration: 0.12 });
    const decoded = await decodeVideoRgba(outputPath, 1280, 720, format === 'webm');
    near(rgbAt(decoded, 0, ...subjectAt), SUBJECT, 4);
  });

  it('webp: the foreground keeps its colour (decoders read WebP as BT.601: it was 186,48,44)', async () => {
    const { outputPath } = await run('webp', { inputPath: hd, previewDuration: 0.12, background: { type: 'color', rgb: GREEN } });
    const decoded = await decodeAnimatedRgba(outputPath);
    near(rgbAt(decoded, 0, ...subjectAt), SUBJECT, 8);
    near(rgbAt(decoded, 0, 1270, 10), GREEN, 8);
  });
});

describe('full-range footage whose pixel format does not say so (10-bit HEVC tagged pc)', () => {
  /** mid-grey 192 over the whole frame, written in full range (not yuvj: the pixel format alone does not tell) */
  let fullRange: string;

  beforeAll(async () => {
    fullRange = join(dir(), 'full-range.mp4');
    await ffmpeg(['-f', 'lavfi', '-i', 'color=c=0xC0C0C0:s=640x360:r=25:d=0.2,format=rgb24,scale=out_color_matrix=bt601:out_range=pc,format=yuv420p10le', '-color_range', 'pc', '-c:v', 'libx265', '-x265-params', 'log-level=error:crf=8:range=full', '-y', fullRange]);
    expect((await probeStreams(fullRange)).streams[0]).toMatchObject({ pix_fmt: 'yuv420p10le', color_range: 'pc' });
  });

  it.each<OutputFormat>(['mov', 'webm', 'webp'])('%s: the grey stays 192 (read as video range, it came out 204-205)', async (format) => {
    const { outputPath } = await run(format, { inputPath: fullRange, previewDuration: 0.12 });
    const decoded = format === 'webp' ? await decodeAnimatedRgba(outputPath) : await decodeVideoRgba(outputPath, 640, 360, format === 'webm');
    const { centerX, centerY } = ellipseAt(0, MATTE, STEP, 640 / MATTE.width);
    for (const channel of rgbAt(decoded, 0, Math.round(centerX), Math.round(centerY))) expect(Math.abs(channel - 192)).toBeLessThanOrEqual(4);
  });
});

describe('refusals and cancel', () => {
  it('input_too_long, from the probe, before any model is loaded', async () => {
    const loadModel = jest.fn();
    const outputPath = join(dir(), 'long.webm');
    await expect(
      runEngine({ inputPath: MEDIA.portraitPan, outputPath, model: 'light', outputFormat: 'webm', background: { type: 'transparent' }, maxDurationSeconds: 3 }, { loadModel, cacheDir: dir() }),
    ).rejects.toMatchObject({ code: 'input_too_long' });
    expect(loadModel).not.toHaveBeenCalled();
    expect(existsSync(outputPath)).toBe(false);
  });

  it("input_too_long for a file whose header says less than it holds (a WebM of 20 s whose duration tag was edited to say 5 s)", async () => {
    const honest = join(dir(), 'twenty-seconds.webm');
    await ffmpeg(['-f', 'lavfi', '-i', 'testsrc=s=64x36:r=10:d=20', '-c:v', 'libvpx', '-b:v', '50k', '-y', honest]);
    const bytes = readFileSync(honest).toString('latin1');
    const stated = /00:00:20\.\d{9}/.exec(bytes);
    expect(stated).not.toBeNull();
    const forged = join(dir(), 'says-five-seconds.webm');
    writeFileSync(forged, Buffer.from(bytes.replace(stated![0], '00:00:05.000000000'), 'latin1'));
    expect((await probeStreams(forged)).streams[0].tags?.DURATION).toBe('00:00:05.000000000');
    // measured from its packets: billed, limited and cut into chunks as the 20 s it holds
    expect(await probe(forged)).toMatchObject({ durationSeconds: expect.closeTo(20, 1), fps: 10, frameCount: 200 });
    const outputPath = join(dir(), 'forged.webm');
    await expect(
      runEngine({ inputPath: forged, outputPath, model: 'light', outputFormat: 'webm', background: { type: 'transparent' }, maxDurationSeconds: 10 }, { loadModel: jest.fn(), cacheDir: dir() }),
    ).rejects.toMatchObject({ code: 'input_too_long' });
  });

  it('a file cut short is as long as what is left of it, whatever its header says', async () => {
    const whole = join(dir(), 'forty-seconds.webm');
    await ffmpeg(['-f', 'lavfi', '-i', 'testsrc=s=64x36:r=10:d=40', '-c:v', 'libvpx', '-b:v', '50k', '-g', '10', '-y', whole]);
    const bytes = readFileSync(whole);
    const cutShort = join(dir(), 'cut-short.webm');
    writeFileSync(cutShort, bytes.subarray(0, Math.round(bytes.length / 10)));
    expect(Number((await probeStreams(cutShort)).format.duration)).toBeCloseTo(40, 1);
    const video = await probe(cutShort);
    expect(video.durationSeconds).toBeGreaterThan(2);
    expect(video.durationSeconds).toBeLessThan(6);
    expect(video.frameCount).toBe(Math.round(video.durationSeconds * 10));
  });

  it('input_invalid for bytes that are not a video, and for a truncated file', async () => {
    const text = join(dir(), 'text.mp4');
    await writeFile(text, 'not a video at all');
    const truncated = join(dir(), 'truncated.mp4');
    await writeFile(truncated, (await readFile(MEDIA.portraitPan)).subarray(0, 4096));
    for (const inputPath of [text, truncated]) {
      await expect(
        runEngine({ inputPath, outputPath: join(dir(), 'x.webm'), model: 'light', outputFormat: 'webm', background: { type: 'transparent' } }, { loadModel: jest.fn(), cacheDir: dir() }),
      ).rejects.toMatchObject({ code: 'input_invalid' });
    }
  });

  it('cancel: aborting kills the pipeline and leaves no output', async () => {
    const controller = new AbortController();
    const outputPath = join(dir(), 'aborted.webm');
    const fake = createFakeModel({ kind: 'ellipse', delayMs: 20 });
    const run = runEngine(
      { inputPath: MEDIA.portraitPan, outputPath, model: 'light', outputFormat: 'webm', background: { type: 'transparent' } },
      { loadModel: async () => fake, cacheDir: dir() },
      (progress) => progress.framesDone === 3 && controller.abort(),
      controller.signal,
    );
    await expect(run).rejects.toMatchObject({ code: 'canceled' });
    expect(fake.sessions[0].framesSeen.length).toBeLessThan(10);
    expect(fake.sessions[0].closed).toBe(true);
    expect((await readdir(dir())).filter((name) => name.includes('aborted'))).toEqual([]);
  });

  it('cancel while the model opens its session: canceled at once, the session closed once it opens (the cancel waited for the load, and the pool killed the warm engine process)', async () => {
    const controller = new AbortController();
    let canceledAt = 0;
    const cancelMidOpening = () =>
      setTimeout(() => {
        canceledAt = Date.now();
        controller.abort();
      }, 300);
    const fake = createFakeModel({ kind: 'ellipse', openMs: 3000, onOpening: cancelMidOpening });
    const run = runEngine(
      { inputPath: MEDIA.portraitPan, outputPath: join(dir(), 'aborted-opening.webm'), model: 'light', outputFormat: 'webm', background: { type: 'transparent' } },
      { loadModel: async () => fake, cacheDir: dir() },
      undefined,
      controller.signal,
    );
    await expect(run).rejects.toMatchObject({ code: 'canceled' });
    expect(canceledAt).toBeGreaterThan(0);
    expect(Date.now() - canceledAt).toBeLessThan(1500);
    for (let waited = 0; waited < 5000 && !fake.sessions[0]?.closed; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fake.sessions[0]?.closed).toBe(true);
  });
});
