/**
 * The input gate with the real ffmpeg and ffprobe: limits at their boundaries on real files, and the
 * attacks the pins stop even when a file gets past the sniffing (defence in depth), shown against the
 * same binary run unpinned.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { deflateSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runEngine } from '../../src/engine/engine';
import { ffmpegPath, ffprobePath } from '../../src/engine/media/binaries';
import { admitImage, admitVideo, probe } from '../../src/engine/media/input-gate';
import { pinFor } from '../../src/engine/media/input-pin';
import { DEFAULT_MEDIA_LIMITS, MediaLimits } from '../../src/engine/media/limits';
import { buildDecodeCheckArgs, PROBE_OUTPUT_LIMIT_BYTES, readVideoInfo } from '../../src/engine/media/probe';
import { RssSampler } from '../../bench/engine/process-tree';
import { bombPng, bombPngRgba, clip, gab2Avi, h264, hlsPlaylist, jpegZipPolyglot, liarDimensionsAvi, pngImage, svgImage } from '../support/hostile-media';
import sharp from 'sharp';
import { createFakeModel } from './support/fake-model';
import { MEDIA } from './support/media';

const run = promisify(execFile);

let dir: string;
let secret: string;
const file = async (name: string, bytes: Buffer | Promise<Buffer>) => {
  const path = join(dir, name);
  await writeFile(path, await bytes);
  return path;
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'input-gate-'));
  secret = await file('secret-output.mp4', clip('64x48', 1, h264, 'mp4'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('limits at their boundaries, on real files', () => {
  const limits: MediaLimits = { maxVideoWidth: 64, maxVideoHeight: 48, maxVideoPixels: 64 * 48, maxFrameRate: 240, maxImagePixels: 64 * 64 };

  it('video: 64x48 passes at 64x48 and 3072 pixels', async () => {
    const video = await probe(await file('at-limit.mp4', clip('64x48', 0.3, h264, 'mp4')), limits);
    expect([video.width, video.height, video.type]).toEqual([64, 48, 'video/mp4']);
  });

  it.each([
    ['one column too wide', '66x48', limits, /66x48, larger than the 64x48 limit/],
    ['one row too tall', '64x50', limits, /64x50, larger than the 64x48 limit/],
    ['one pixel over the pixel count', '64x48', { ...limits, maxVideoPixels: 64 * 48 - 1 }, /3072 pixels a frame\), over the limit of 3071 pixels/],
  ])('video: refused when %s', async (_name, size, over, message) => {
    const path = await file(`over-${size}.mp4`, clip(size, 0.3, h264, 'mp4'));
    await expect(admitVideo(path, over)).rejects.toMatchObject({ code: 'input_invalid', message: expect.stringMatching(message) });
  });

  it('video: 250 frames a second pass at a limit of 250, are refused at 249', async () => {
    const path = await file('fast.mp4', clip('64x48', 0.2, h264, 'mp4', 250));
    expect((await admitVideo(path, { ...limits, maxFrameRate: 250 })).fps).toBe(250);
    await expect(admitVideo(path, { ...limits, maxFrameRate: 249 })).rejects.toMatchObject({ code: 'input_invalid', message: 'the video runs at 250 frames a second, over the limit of 249' });
  });

  it('image: 64x64 passes at 4096 pixels, 65x64 is refused', async () => {
    expect(await admitImage(await file('64.png', pngImage(64, 64)), limits)).toMatchObject({ type: 'image/png', width: 64, height: 64, pin: { demuxer: 'png_pipe' } });
    await expect(admitImage(await file('65.png', pngImage(65, 64)), limits)).rejects.toThrow(/65x64 \(4160 pixels\), over the limit of 4096 pixels/);
  });

  it.each([
    ['mp4', h264, 'mp4', 'video/mp4', 'mov'],
    ['mov', ['-c:v', 'mjpeg'], 'mov', 'video/quicktime', 'mov'],
    ['webm', ['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8'], 'webm', 'video/webm', 'matroska'],
    ['avi', ['-c:v', 'mjpeg'], 'avi', 'video/x-msvideo', 'avi'],
  ])('a %s probes and decodes through its pin', async (name, codec, format, type, demuxer) => {
    const video = await probe(await file(`container.${name}`, clip('64x48', 0.3, codec, format)));
    expect(video).toMatchObject({ type, width: 64, height: 48, pin: { demuxer } });
  });

  it('the shared clips and images pass the default limits', async () => {
    expect((await probe(MEDIA.portraitPan)).pin).toEqual({ demuxer: 'mov', maxPixels: 2 * DEFAULT_MEDIA_LIMITS.maxVideoPixels });
    expect((await admitImage(MEDIA.portraitJpg)).pin.demuxer).toBe('jpeg_pipe');
    expect((await admitImage(MEDIA.astronaut)).pin.demuxer).toBe('png_pipe');
  });
});

describe('every accepted image type decodes through its pin', () => {
  const image = (format: 'png' | 'jpeg' | 'webp' | 'gif') => sharp({ create: { width: 48, height: 32, channels: 3, background: { r: 0, g: 0, b: 255 } } }).toFormat(format).toBuffer();

  it.each([
    ['png', 'png_pipe'],
    ['jpeg', 'jpeg_pipe'],
    ['webp', 'webp_pipe'],
    ['gif', 'gif'],
  ] as const)('%s: admitted with the %s demuxer', async (format, demuxer) => {
    const admitted = await admitImage(await file(`bg-${format}`, image(format)));
    expect(admitted).toMatchObject({ type: `image/${format}`, width: 48, height: 32, pin: { demuxer } });
  });

  it('a WebP and a GIF background composite like a PNG one', async () => {
    for (const format of ['webp', 'gif'] as const) {
      const outputPath = join(dir, `over-${format}.mp4`);
      const background = { type: 'image' as const, imagePath: await file(`composite-${format}`, image(format)) };
      const result = await runEngine(
        { inputPath: MEDIA.portraitPan, outputPath, model: 'light', outputFormat: 'mp4', background, previewDuration: 0.2 },
        { loadModel: async () => createFakeModel({ kind: 'ellipse' }), cacheDir: dir, workDir: dir },
      );
      expect(result.frames).toBe(5);
    }
  });
});

describe('attacks the pins stop', () => {
  const grayFrame = async (args: string[]) => {
    try {
      return (await run(ffmpegPath(), args, { encoding: 'buffer', maxBuffer: 1 << 20 })).stdout.length;
    } catch {
      return 0;
    }
  };

  it('an HLS playlist named .png whose segment is a local video: unpinned ffmpeg decodes the local file; pinned, nothing is read', async () => {
    const playlist = await file('background.png', hlsPlaylist(`file://${secret}`));
    const unpinned = ['-v', 'error', '-i', playlist, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1'];
    expect(await grayFrame(unpinned)).toBe(64 * 48); // the attack is real on this ffmpeg
    expect(await grayFrame(buildDecodeCheckArgs(playlist, pinFor('image/png')))).toBe(0);
    await expect(admitImage(playlist)).rejects.toThrow('the background image is an HLS playlist, not a PNG, JPEG, WebP or GIF image');
  });

  it('an HLS playlist named .mp4: refused by its bytes; forced through the pinned ffprobe, it is still not read as HLS', async () => {
    const playlist = await file('video.mp4', hlsPlaylist(`file://${secret}`, 'concat:/etc/passwd|/etc/hostname', 'subfile,,start,0,end,0,,:/etc/passwd'));
    await expect(admitVideo(playlist)).rejects.toThrow('the file is an HLS playlist, not an mp4, mov, webm or avi video');
    await expect(readVideoInfo(playlist, pinFor('video/mp4'))).rejects.toThrow(/could not be read as a video.*moov atom not found/);
  });

  it('an AVI whose GAB2 subtitle holds a playlist: no video, refused', async () => {
    const avi = await file('subtitle.avi', gab2Avi(hlsPlaylist(`file://${secret}`)));
    await expect(probe(avi)).rejects.toMatchObject({ code: 'input_invalid' });
  });

  it('a decompression-bomb PNG is refused from its header; a pinned decoder would refuse it too', async () => {
    const bomb = await file('bomb.png', bombPng(15000, 15000));
    await expect(admitImage(bomb)).rejects.toThrow(/15000x15000 \(225000000 pixels\), over the limit of 40000000 pixels/);
    expect(await grayFrame(buildDecodeCheckArgs(bomb, pinFor('image/png', 2 * DEFAULT_MEDIA_LIMITS.maxImagePixels)))).toBe(0);
  });

  it('memory: a 10000x10000 RGBA bomb (400 MB decoded, over the decoders\' 80 MP cap) decoded unpinned grows the process tree by hundreds of MB; through its pin, by next to nothing', async () => {
    const bomb = await file('bomb-rgba.png', bombPngRgba(10000, 10000));
    const growthMb = async (args: string[]) => {
      const sampler = new RssSampler();
      sampler.start(10);
      const baseline = sampler.peakTree;
      await grayFrame(args);
      sampler.stop();
      return (sampler.peakTree - baseline) / 2 ** 20;
    };
    const unpinned = await growthMb(['-v', 'error', '-i', bomb, '-frames:v', '1', '-vf', 'scale=16:16', '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1']);
    const pinned = await growthMb(buildDecodeCheckArgs(bomb, pinFor('image/png', 2 * DEFAULT_MEDIA_LIMITS.maxImagePixels)));
    process.stdout.write(`bomb decode: unpinned +${Math.round(unpinned)} MB, pinned +${Math.round(pinned)} MB\n`);
    expect(unpinned).toBeGreaterThan(300);
    expect(pinned).toBeLessThan(60);
  });

  it("a video whose metadata ffprobe would describe in more than 1 MB is refused, its description read no further: an 84 KB MP4 with a compressed header unpacking to an 80 MB title had the API hold 1.65 GB of JSON", async () => {
    /** an MP4 with `tags` tags of 100,000 characters each (one argument holds at most 128 KB) */
    const withTags = async (name: string, tags: number, extra = 0) => {
      const path = join(dir, name);
      const metadata = Array.from({ length: tags }, (_, i) => ['-metadata', `t${i}=${'a'.repeat(100_000 + (i === 0 ? extra : 0))}`]).flat();
      await run(ffmpegPath(), ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=25:duration=0.2', ...metadata, '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-movflags', 'use_metadata_tags', path]);
      return path;
    };
    const over = await withTags('many-tags.mp4', Math.ceil(PROBE_OUTPUT_LIMIT_BYTES / 100_000));
    await expect(admitVideo(over, DEFAULT_MEDIA_LIMITS)).rejects.toMatchObject({ code: 'input_invalid', message: "the file's metadata is too large: its description went past 1 MB" });
    // some 30 KB under the limit, it passes
    const under = await withTags('fewer-tags.mp4', Math.floor(PROBE_OUTPUT_LIMIT_BYTES / 100_000), PROBE_OUTPUT_LIMIT_BYTES % 100_000 - 30_000);
    expect((await admitVideo(under, DEFAULT_MEDIA_LIMITS)).width).toBe(64);
  });

  it("an MP4 whose compressed header (cmov) declares 300 MB unpacked is refused by ffprobe's allocation cap (a 2 KB file; unpinned, ffprobe reads it)", async () => {
    const box = (type: string, ...payload: Buffer[]) => {
      const size = Buffer.alloc(4);
      size.writeUInt32BE(8 + payload.reduce((sum, part) => sum + part.length, 0));
      return Buffer.concat([size, Buffer.from(type, 'latin1'), ...payload]);
    };
    const declared = Buffer.alloc(4);
    declared.writeUInt32BE(300 * 1024 * 1024);
    const plain = join(dir, 'faststart.mp4');
    await run(ffmpegPath(), ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=25:duration=0.2', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-movflags', 'faststart', plain]);
    const original = await readFile(plain);
    const boxes: Buffer[] = [];
    for (let at = 0; at < original.length; at += original.readUInt32BE(at)) boxes.push(original.subarray(at, at + original.readUInt32BE(at)));
    const compressed = boxes.map((part) => (part.toString('latin1', 4, 8) === 'moov' ? box('moov', box('cmov', box('dcom', Buffer.from('zlib')), box('cmvd', declared, deflateSync(part.subarray(8))))) : part));
    const bomb = await file('cmov.mp4', Buffer.concat(compressed));
    await expect(readVideoInfo(bomb, pinFor('video/mp4'))).rejects.toThrow(/could not be read as a video.*Cannot allocate memory/);
    // the same file, ffprobe's allocations left alone: it allocates the 300 MB and reads the header
    await expect(run(ffprobePath(), ['-v', 'error', '-show_streams', bomb])).resolves.toMatchObject({ stdout: expect.stringContaining('codec_name=h264') });
  });

  it("a video whose probe outlasts its deadline is refused, and the probe stopped; the caller's own cancel stays a cancel", async () => {
    await expect(probe(secret, DEFAULT_MEDIA_LIMITS, undefined, 1)).rejects.toMatchObject({ code: 'input_invalid', message: 'the file took longer than 0.001 s to read' });
    const canceled = new AbortController();
    canceled.abort();
    await expect(probe(secret, DEFAULT_MEDIA_LIMITS, canceled.signal, 1)).rejects.toMatchObject({ code: 'canceled' });
    expect((await probe(secret, DEFAULT_MEDIA_LIMITS)).width).toBe(64);
  });

  it('a video whose headers declare 12000x12000 over tiny frames is refused with its declared size', async () => {
    await expect(admitVideo(await file('liar.avi', liarDimensionsAvi(12000, 12000)))).rejects.toThrow('the video is 12000x12000, larger than the 4096x4096 limit');
  });

  it('SVG and polyglots are refused as images', async () => {
    await expect(admitImage(await file('bg.svg.png', svgImage()))).rejects.toThrow('the background image is an SVG image');
    await expect(admitImage(await file('poly.jpg', jpegZipPolyglot()))).rejects.toThrow('a JPEG image and a ZIP archive at once');
    // bytes after the archive: unzip still opens it
    await expect(admitImage(await file('poly-trailing.jpg', Buffer.concat([await jpegZipPolyglot(), Buffer.alloc(16)])))).rejects.toThrow('a JPEG image and a ZIP archive at once');
  });

  it('the engine gates its own inputs: an HLS background image fails the run before any model loads', async () => {
    const loadModel = jest.fn();
    const background = await file('bg-hls', hlsPlaylist(`file://${secret}`));
    const request = { inputPath: MEDIA.portraitPan, outputPath: join(dir, 'x.webm'), model: 'light' as const, outputFormat: 'webm' as const, background: { type: 'image' as const, imagePath: background } };
    await expect(runEngine(request, { loadModel, cacheDir: dir })).rejects.toMatchObject({ code: 'input_invalid', message: expect.stringMatching(/HLS playlist/) });
    expect(loadModel).not.toHaveBeenCalled();
  });
});
