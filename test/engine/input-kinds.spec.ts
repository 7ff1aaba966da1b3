/**
 * The kinds of footage users upload, end to end through the engine with the test-double model, each
 * made here with ffmpeg: non-square pixels, a browser's live WebM, a thumbnail track stored before
 * the video, interlaced video, a phone's HEVC turned a quarter, HDR. Each is read as its maker meant:
 * at its display size, whole, from its moving track, deinterlaced, upright, tone-mapped, with the
 * mattes on their own frames.
 */
import { join } from 'node:path';
import { ffmpegPath } from '../../src/engine/media/binaries';
import { probe } from '../../src/engine/media/input-gate';
import { runToCompletion } from '../../src/engine/media/process';
import { buildDecodeArgs, SourceSpec } from '../../src/engine/pipeline/ffmpeg-args';
import { sourceSpecOf } from '../../src/engine/pipeline/plan';
import { alignmentChecks, formatRunner } from './support/format-run';
import { decodePngRgba, ffmpeg, probeStreams, readZipEntries } from './support/media-tools';
import { temporaryDirectory } from '../support/temporary-directory';

const dir = temporaryDirectory('engine-input-kinds-');
const run = formatRunner(dir);
const { movingBox, expectAlphaFollowsContent } = alignmentChecks(dir, run);

describe('footage as it comes', () => {
  it('writes non-square pixels at their display size in square ones, mattes aligned', async () => {
    // 160x96 squeezed into 120x96 pixels 4:3 wide, as HDV keeps 1920x1080 in 1440x1080
    const path = join(dir(), 'anamorphic.mp4');
    await ffmpeg(['-i', await movingBox('anamorphic-source.mp4'), '-vf', 'scale=120:96,setsar=4/3', '-c:v', 'libx264', '-pix_fmt', 'yuv444p', '-y', path]);
    expect((await probeStreams(path)).streams[0]).toMatchObject({ width: 120, height: 96, sample_aspect_ratio: '4:3' });
    const { result } = await expectAlphaFollowsContent(path, 160, 96);
    expect([result.width, result.height]).toEqual([160, 96]);
    const webm = await run('webm', { inputPath: path, previewDuration: undefined });
    expect((await probeStreams(webm.outputPath)).streams[0]).toMatchObject({ width: 160, height: 96, sample_aspect_ratio: '1:1' });
  });

  it("reads a browser's recording: a live WebM with no duration, measured from its packets", async () => {
    // MediaRecorder's WebM, as ffmpeg's live mode writes it: no duration, no index
    const path = join(dir(), 'recorded.webm');
    await ffmpeg(['-i', await movingBox('recorded-source.mp4'), '-c:v', 'libvpx', '-b:v', '1M', '-live', '1', '-f', 'webm', '-y', path]);
    expect((await probeStreams(path)).format.duration).toBeUndefined();
    const { result } = await expectAlphaFollowsContent(path, 160, 96);
    expect(result.frames).toBe(30);
    expect(result.durationSeconds).toBeCloseTo(1.2, 5);
  });

  it('reads a video whose audio runs on past its picture for as long as the picture lasts (it took the audio for its length)', async () => {
    const path = join(dir(), 'long-audio.mp4');
    await ffmpeg(['-i', await movingBox('long-audio-source.mp4'), '-f', 'lavfi', '-i', 'sine=f=440:d=5', '-map', '0:v', '-map', '1:a', '-c:v', 'copy', '-c:a', 'aac', '-y', path]);
    expect(Number((await probeStreams(path)).format.duration)).toBeGreaterThan(4.9);
    // the probe's duration is what is billed, held to MAX_VIDEO_SECONDS and cut into chunks
    expect((await probe(path)).durationSeconds).toBeCloseTo(1.2, 1);
    const { result } = await expectAlphaFollowsContent(path, 160, 96);
    expect(result.frames).toBe(30);
    expect(result.durationSeconds).toBeCloseTo(1.2, 5);
  });

  it('reads the moving track behind a one-picture thumbnail track stored first', async () => {
    const thumbnail = join(dir(), 'thumbnail.jpg');
    await ffmpeg(['-f', 'lavfi', '-i', 'color=red:s=64x48', '-frames:v', '1', '-y', thumbnail]);
    const path = join(dir(), 'with-thumbnail.mp4');
    await ffmpeg(['-i', thumbnail, '-i', await movingBox('thumbnail-source.mp4'), '-map', '0:v', '-map', '1:v', '-c', 'copy', '-y', path]);
    expect((await probeStreams(path)).streams.map((stream) => stream.codec_name)).toEqual(['mjpeg', 'h264']);
    const { result } = await expectAlphaFollowsContent(path, 160, 96);
    expect([result.width, result.height, result.frames]).toEqual([160, 96, 30]);
  });

  it('deinterlaces interlaced input: no combed edges in the output, mattes aligned', async () => {
    // a white box moving 4 px a field, 50 fields a second woven into 25 top-field-first frames
    const path = join(dir(), 'interlaced.mp4');
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
    const upright = join(dir(), 'phone-upright.mov');
    await ffmpeg([
      '-i', await movingBox('phone-source.mp4'),
      '-c:v', 'libx265', '-pix_fmt', 'yuv420p10le', '-x265-params', 'log-level=error:colorprim=bt2020:transfer=arib-std-b67:colormatrix=bt2020nc',
      '-color_primaries', 'bt2020', '-color_trc', 'arib-std-b67', '-colorspace', 'bt2020nc', '-y', upright,
    ]);
    // this ffmpeg writes the rotation only when it copies the stream
    const path = join(dir(), 'phone.mov');
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
    const path = join(dir(), `hdr-${transfer}.mp4`);
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
    // SDR's white back near white, not a stop below it (194 with 100 nits at 1.0 and Hable's curve); alpha too: the model saw it bright
    expect(Math.min(...white)).toBeGreaterThan(220);
    expect(Math.max(...white.slice(0, 3)) - Math.min(...white.slice(0, 3))).toBeLessThan(8);
    expect(gray.slice(0, 3).every((v) => v > 54 && v < 74)).toBe(true); // 0x40 as it was
    expect(red[0]).toBeGreaterThan(220);
    expect(Math.max(red[1], red[2])).toBeLessThan(30);
  });
});

describe('an Xvid AVI with B-frames, whose frames the decoder times (AVI states no presentation times)', () => {
  it('gives a whole run as many frames as the clip has (the last came twice: 101 of 100, 40 ms past the sound)', async () => {
    const avi = join(dir(), 'xvid-100.avi');
    await ffmpeg(['-f', 'lavfi', '-i', 'testsrc2=size=160x120:rate=25', '-frames:v', '100', '-c:v', 'mpeg4', '-vtag', 'xvid', '-bf', '2', '-y', avi]);
    const { result } = await run('png_sequence', { inputPath: avi, previewDuration: undefined }, { kind: 'bright', input: { width: 160, height: 120 } });
    expect(result.frames).toBe(100);
  });

  it("gives a long job's chunk the single run's frames (seeked, it started a frame early: the seam's frame twice, then a frame off its sound)", async () => {
    const avi = join(dir(), 'xvid.avi');
    await ffmpeg(['-f', 'lavfi', '-i', 'testsrc2=size=160x120:rate=24000/1001', '-t', '6', '-c:v', 'mpeg4', '-vtag', 'xvid', '-g', '300', '-bf', '2', '-y', avi]);
    const source = sourceSpecOf(avi, await probe(avi));
    const size = { width: 32, height: 24 };
    const framesOf = async (spec: SourceSpec): Promise<string[]> => {
      const { stdout: raw } = await runToCompletion(ffmpegPath(), buildDecodeArgs(spec, size));
      const bytes = size.width * size.height * 3;
      return Array.from({ length: raw.length / bytes }, (_, i) => raw.subarray(i * bytes, (i + 1) * bytes).toString('base64'));
    };
    const whole = await framesOf(source);
    const chunk = await framesOf({ ...source, frames: { start: 96, end: 120 } });
    expect(chunk).toHaveLength(24);
    expect(chunk).toEqual(whole.slice(96, 120));
  });
});
