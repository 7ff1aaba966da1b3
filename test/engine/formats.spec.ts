/**
 * Every output format, end to end through runEngine with a deterministic test-double model: a
 * few frames of real footage in, the output decoded back and checked (frames, size, duration,
 * alpha where promised, audio, GIF trails). Composition, frame alignment and refusals: formats-composition.spec.ts.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { OutputFormat } from '../../src/engine/types';
import { ellipseAt } from './support/fake-model';
import { expectEllipseAlpha, expectPreviewResult, formatRunner, MATTE, OUTPUT_SCALE, PREVIEW_FRAMES, STEP } from './support/format-run';
import {
  alphaAt,
  decodeAnimatedRgba,
  decodePngRgba,
  decodeVideoRgba,
  ffmpeg,
  probeStreams,
  readZipEntries,
  rgbAt,
  soundOnset,
  soundSeconds,
} from './support/media-tools';
import { temporaryDirectory } from '../support/temporary-directory';

const dir = temporaryDirectory('engine-formats-');
const run = formatRunner(dir);

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
    // the alpha plane holds the matte's 0-255 as they are (its colour and alpha are encoded apart:
    // a gray-to-yuv420p conversion left to itself squeezes them into 16-235)
    const { centerX, centerY } = ellipseAt(6, MATTE, STEP, OUTPUT_SCALE);
    expect(alphaAt(decoded, 6, Math.round(centerX), Math.round(centerY))).toBeGreaterThanOrEqual(252);
    expect(alphaAt(decoded, 6, 630, 10)).toBeLessThanOrEqual(3);
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

  it.each<OutputFormat>(['gif', 'webp'])('%s from 120 fps: written at 50 fps, so that it plays for as long as the video (a GIF\'s 1 s was 120 frames of 1/100 s, a WebP\'s 8-9 ms frames; browsers play both as 1/10 s each)', async (format) => {
    const fast = join(dir(), `fast-${format}.mp4`);
    await ffmpeg(['-f', 'lavfi', '-i', 'testsrc=s=160x90:r=120:d=1', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-y', fast]);
    const { outputPath } = await run(format, { inputPath: fast, previewDuration: undefined });
    const { delay } = await decodeAnimatedRgba(outputPath);
    // WebP's encoder merges the frames left the same once the test double's ellipse has gone: one longer frame
    expect(Math.min(...delay)).toBe(20);
    expect(delay.reduce((sum, ms) => sum + ms, 0)).toBe(1000);
    if (format === 'gif') expect(delay).toHaveLength(50);
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
    expect((await readdir(dir())).filter((name) => name.endsWith('.partial') || name.startsWith('backdrop-engine-'))).toEqual([]);
  });
});

describe('audio', () => {
  let withAudio: string;
  beforeAll(async () => {
    withAudio = join(dir(), 'with-audio.mp4');
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

  it.each([
    ['5.1(side) (as AC-3 and DTS carry it)', '5.1(side)', 'ac3', 6],
    ['octagonal', 'octagonal', 'pcm_s16le', 8],
  ])('keeps %s audio in webm, in a layout Opus takes (it failed the job)', async (_name, layout, codec, channels) => {
    const surround = join(dir(), `surround-${channels}.mov`);
    const pan = Array.from({ length: channels }, (_, channel) => `c${channel}=c0`).join('|');
    await ffmpeg(['-f', 'lavfi', '-i', 'testsrc=s=320x180:r=25:d=1', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', '-af', `pan=${layout}|${pan}`, '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', codec, '-shortest', '-y', surround]);
    expect((await probeStreams(surround)).streams.find((stream) => stream.codec_type === 'audio')).toMatchObject({ channel_layout: layout });
    const { result, outputPath } = await run('webm', { inputPath: surround, previewDuration: undefined });
    expect(result.frames).toBe(25);
    const audio = (await probeStreams(outputPath)).streams.find((stream) => stream.codec_type === 'audio');
    expect(audio).toMatchObject({ codec_name: 'opus', channels });
  });

  it.each<OutputFormat>(['webm', 'mp4', 'mov'])('keeps the delay of audio that starts after the picture in %s (webm, encoded apart, moved it to the start)', async (format) => {
    const late = join(dir(), 'late-audio.mp4');
    await ffmpeg(['-i', withAudio, '-itsoffset', '0.5', '-i', withAudio, '-map', '0:v', '-map', '1:a', '-c', 'copy', '-y', late]);
    const { outputPath } = await run(format, { inputPath: late, previewDuration: undefined });
    // the first loud sample on the file's timeline: where the source's is, within 40 ms
    expect(Math.abs((await soundOnset(outputPath)) - (await soundOnset(late)))).toBeLessThan(0.04);
    expect(await soundOnset(late)).toBeGreaterThan(0.45);
  });

  it.each<OutputFormat>(['webm', 'mp4', 'mov'])('starts %s with a picture that starts after the sound, in step with it and without frozen frames at the end', async (format) => {
    // the picture from 0.5 s to 1.5 s, a tone from 1 s: the output starts with the picture, the tone 0.5 s in
    const latePicture = join(dir(), 'late-picture.mp4');
    await ffmpeg(['-itsoffset', '0.5', '-i', withAudio, '-f', 'lavfi', '-i', "aevalsrc='if(gte(t,1),0.5*sin(2*PI*440*t),0)':s=48000:d=2", '-map', '0:v', '-map', '1:a', '-c:v', 'copy', '-c:a', 'aac', '-y', latePicture]);
    const { result, outputPath } = await run(format, { inputPath: latePicture, previewDuration: undefined });
    expect(result.frames).toBe(25);
    expect((await probeStreams(outputPath)).streams.find((stream) => stream.codec_type === 'video')).toMatchObject({ nb_read_frames: '25' });
    expect(Math.abs((await soundOnset(outputPath)) - 0.5)).toBeLessThan(0.04);
    // a preview of it: its first 0.8 s of picture, and the sound with it to the end (it was cut at 0.3 s: counted from the sound's start)
    const preview = await run(format, { inputPath: latePicture, previewDuration: 0.8 });
    expect(preview.result.frames).toBe(20);
    const streams = (await probeStreams(preview.outputPath)).streams;
    expect(streams.find((stream) => stream.codec_type === 'video')).toMatchObject({ nb_read_frames: '20' });
    expect(await soundSeconds(preview.outputPath)).toBeGreaterThan(0.75);
    expect(Math.abs((await soundOnset(preview.outputPath)) - 0.5)).toBeLessThan(0.04);
  });

  it.each<OutputFormat>(['webm', 'mp4', 'mov'])('ends the sound of %s with the picture when the track runs longer (0.5 s of picture with 3 s of sound came out 3 s long)', async (format) => {
    const longSound = join(dir(), 'long-sound.mp4');
    await ffmpeg(['-f', 'lavfi', '-i', 'testsrc=s=160x96:r=25:d=0.5', '-f', 'lavfi', '-i', 'sine=d=3', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-y', longSound]);
    const { result, outputPath } = await run(format, { inputPath: longSound, previewDuration: undefined });
    expect(result.durationSeconds).toBeCloseTo(0.5, 1);
    const seconds = await soundSeconds(outputPath);
    expect(seconds).toBeGreaterThan(0.45);
    expect(seconds).toBeLessThan(0.56);
  });

  it.each<OutputFormat>(['mp4', 'mov'])('writes %s of a 1 fps video with sound (the sound waited past ffmpeg\'s queue for the first picture)', async (format) => {
    const slow = join(dir(), 'one-fps.mp4');
    await ffmpeg(['-f', 'lavfi', '-i', 'testsrc=s=64x36:r=1:d=20', '-f', 'lavfi', '-i', 'sine=d=20', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-y', slow]);
    const { result, outputPath } = await run(format, { inputPath: slow, previewDuration: undefined });
    expect(result.frames).toBe(20);
    expect(await soundSeconds(outputPath)).toBeGreaterThan(19.9);
  });

  it.each<OutputFormat>(['mp4', 'webm'])("writes %s over a colour from 120 fps footage (a phone's slow motion: encoder and engine waited on each other for good)", async (format) => {
    const slowMotion = join(dir(), 'slow-motion.mp4');
    await ffmpeg(['-f', 'lavfi', '-i', 'testsrc=s=320x180:r=120:d=1', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-y', slowMotion]);
    const { result } = await run(format, { inputPath: slowMotion, previewDuration: 0.5, background: { type: 'color', rgb: [9, 162, 70] } });
    expect(result.frames).toBe(60);
  }, 30_000);

  it('drops it in formats without audio', async () => {
    const { outputPath } = await run('webp', { inputPath: withAudio, previewDuration: 0.2 });
    expect((await decodeAnimatedRgba(outputPath)).pages).toBe(5);
  });
});
