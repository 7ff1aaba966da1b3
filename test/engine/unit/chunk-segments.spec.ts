import { buildJoinAudioArgs, buildJoinFramesArgs, buildJoinGifArgs, buildJoinPaletteArgs, buildStreamCopyJoinArgs, concatInputArgs, concatList } from '../../../src/engine/chunks/join-args';
import { planSegment, segmentFormatFor, segmentFrames } from '../../../src/engine/chunks/segment';
import { ENCODER_PRESETS } from '../../../src/engine/pipeline/encoders';
import { sourceChain } from '../../../src/engine/pipeline/ffmpeg-args';
import { fromVideoStart, inputSeekSeconds, parseVideoStart, previewCut, previewReadSeconds, seekArgs, videoDelayArgs } from '../../../src/engine/pipeline/input-seek';
import { JobPlan } from '../../../src/engine/pipeline/plan';

describe('a long job\'s segments', () => {
  it('turn seconds into frames the same way on every worker, so neighbours meet without gap or overlap', () => {
    const fps = 24;
    const bounds = [0, 1.111, 2.222, 3.333];
    const windows = bounds.map((start, i) => segmentFrames({ startSeconds: start, endSeconds: bounds[i + 1], prerollSeconds: 1 }, fps).window);
    for (let i = 1; i < windows.length; i++) expect(windows[i].start).toBe(windows[i - 1].end);
    expect(windows[windows.length - 1].end).toBeUndefined();
    expect(segmentFrames({ startSeconds: 2, endSeconds: 3, prerollSeconds: 1 }, 25)).toEqual({ window: { start: 50, end: 75 }, preroll: { start: 25, end: 50 } });
    expect(segmentFrames({ startSeconds: 0.4, prerollSeconds: 1 }, 25).preroll).toEqual({ start: 0, end: 10 });
  });

  it('refuse a range that holds no frame or starts before the video', () => {
    expect(() => segmentFrames({ startSeconds: 2, endSeconds: 2.01, prerollSeconds: 0 }, 25)).toThrow('holds no frame');
    expect(() => segmentFrames({ startSeconds: -1, prerollSeconds: 0 }, 25)).toThrow('at or after 0 s');
  });

  it('cut the plan to the window, without audio', () => {
    const plan = { source: { fps: 25 }, keepAudio: true, framesExpected: 100 } as unknown as JobPlan;
    expect(planSegment(plan, { startSeconds: 1, endSeconds: 2, prerollSeconds: 0.5 })).toMatchObject({ source: { fps: 25, frames: { start: 25, end: 50 } }, keepAudio: false, framesExpected: 25 });
    expect(planSegment(plan, { startSeconds: 3, prerollSeconds: 0.5 }).framesExpected).toBe(25);
  });

  it('trim the constant-rate sequence after it is made, then restart its clock', () => {
    expect(sourceChain(25)).toBe('setpts=PTS-STARTPTS,fps=25');
    expect(sourceChain(25, { start: 25, end: 50 })).toBe('setpts=PTS-STARTPTS,fps=25,trim=start_frame=25:end_frame=50,setpts=PTS-STARTPTS');
    expect(sourceChain(25, { start: 75 })).toBe('setpts=PTS-STARTPTS,fps=25,trim=start_frame=75,setpts=PTS-STARTPTS');
  });

  it('seek their input a margin before their first frame, numbering the sequence from the video\'s first timestamp', () => {
    const start = { pts: 9216, timeBase: [1, 12800] as const, fileStartMicros: 0 };
    // -itsoffset moved the first timestamp to 0 exactly (0.72 s): nothing left for setpts to do
    expect(sourceChain(25, { start: 75, end: 100 }, start)).toBe('fps=25,trim=start_pts=75:end_pts=100,setpts=PTS-STARTPTS');
    expect(fromVideoStart({ pts: 2500, timeBase: [1, 1000], fileStartMicros: 2_500_000 })).toBeUndefined();
    // 1/90000 s is no whole number of microseconds: setpts takes off what -itsoffset left
    const transportStream = { pts: 126_001, timeBase: [1, 90000] as const, fileStartMicros: 1_400_000 };
    expect(seekArgs(2, transportStream)).toEqual(['-copyts', '-itsoffset', '-1.400011', '-ss', '2', '-noaccurate_seek']);
    expect(sourceChain(25, { start: 75 }, transportStream)).toBe('setpts=PTS-(126001/90000-1400011/1000000)/TB,fps=25,trim=start_pts=75,setpts=PTS-STARTPTS');
    expect(inputSeekSeconds(75, 25, start, undefined)).toBe(2);
    expect(inputSeekSeconds(75, 10, start, undefined)).toBeCloseTo(5.8); // 17 frames at 10 fps
    expect(inputSeekSeconds(20, 25, start, undefined)).toBeNull(); // within the margin: from the start
    expect(inputSeekSeconds(75, 25, start, 20)).toBeNull(); // a preview's -t counts from the first frame read
    expect(inputSeekSeconds(75, 25, undefined, undefined)).toBeNull();
    expect(inputSeekSeconds(75, 25, { ...start, guessedTimes: true }, undefined)).toBeNull(); // AVI with B-frames: its first frame may come after the start
    expect(seekArgs(2, start)).toEqual(['-copyts', '-itsoffset', '-0.720000', '-ss', '2', '-noaccurate_seek']);
    expect(seekArgs(2, { pts: 0, timeBase: [1, 1000], fileStartMicros: 0 })).toEqual(['-copyts', '-ss', '2', '-noaccurate_seek']);
    expect(parseVideoStart(9216, '1/12800', '0.000000')).toEqual(start);
    expect(parseVideoStart(undefined, '1/12800', '0.000000')).toBeUndefined();
    expect(parseVideoStart(0, '1/12800', undefined)).toBeUndefined();
  });

  it('open an input whose picture starts after the file does (its audio first) at the picture', () => {
    expect(videoDelayArgs({ pts: 9216, timeBase: [1, 12800], fileStartMicros: 0 })).toEqual(['-itsoffset', '-0.720000']);
    expect(videoDelayArgs({ pts: 9216, timeBase: [1, 12800], fileStartMicros: 700_000 })).toEqual(['-itsoffset', '-0.020000']);
    expect(videoDelayArgs({ pts: 2500, timeBase: [1, 1000], fileStartMicros: 2_500_000 })).toEqual([]); // the picture first
    expect(videoDelayArgs(undefined)).toEqual([]);
  });

  it("read a preview of such an input that much longer, for the sound, and cut its picture to the preview's length", () => {
    const late = { pts: 6400, timeBase: [1, 12800] as const, fileStartMicros: 0 };
    expect(previewReadSeconds(2, late)).toBe(2.5);
    expect(previewCut(2, late)).toBe('trim=duration=2');
    expect(sourceChain(25, undefined, undefined, previewCut(2, late))).toBe('setpts=PTS-STARTPTS,fps=25,trim=duration=2');
    expect([previewReadSeconds(2, undefined), previewCut(2, undefined), previewCut(undefined, late)]).toEqual([2, undefined, undefined]);
    const args = buildJoinAudioArgs({ path: '/tmp/source.mp4', pin: { demuxer: 'mov' }, videoStart: late, durationLimit: 2, pictureSeconds: 2 }, ENCODER_PRESETS.mp4, '/tmp/audio.mp4');
    expect(args.join(' ')).toContain('-itsoffset -0.500000 -t 2.5 -i /tmp/source.mp4');
  });

  it('are written in the job\'s format when it can be stream-copied, else in ProRes for one final encode', () => {
    expect(['webm', 'mp4', 'mov', 'gif', 'webp', 'png_sequence'].map((format) => segmentFormatFor(format as never))).toEqual(['webm', 'mp4', 'mov', 'mov', 'mov', 'mov']);
  });
});

describe('the join\'s ffmpeg arguments', () => {
  it('list each chunk quoted with its exact duration', () => {
    expect(concatList(['/tmp/a/0.webm', "/tmp/it's/1.webm"], [1.5, 1 / 24])).toBe("file '/tmp/a/0.webm'\nduration 1.5\nfile '/tmp/it'\\''s/1.webm'\nduration 0.04166667\n");
  });

  it('let the concat demuxer open nothing but files of the chunks\' container', () => {
    expect(concatInputArgs('/tmp/list.txt', 'webm')).toEqual(['-protocol_whitelist', 'file,pipe', '-format_whitelist', 'concat,matroska', '-f', 'concat', '-safe', '0', '-i', '/tmp/list.txt']);
    expect(() => concatInputArgs('/tmp/list.txt', 'gif')).toThrow('cannot be joined');
  });

  it('copy the video and the already encoded audio', () => {
    const args = buildStreamCopyJoinArgs('/tmp/list.txt', ENCODER_PRESETS.mp4, '/tmp/audio.mp4', '/tmp/out.mp4');
    expect(args.join(' ')).toContain('-format_whitelist mov -f mov -i /tmp/audio.mp4 -map 0:v:0 -map 1:a:0 -c copy -movflags +faststart -f mp4 -y /tmp/out.mp4');
    expect(buildStreamCopyJoinArgs('/tmp/list.txt', ENCODER_PRESETS.webm, undefined, '/tmp/out.webm').join(' ')).toContain('-map 0:v:0 -an -c copy -f webm');
  });

  it("encode the audio from the video's start, a late track's delay kept as silence (the stream copy moved it to 0), and cut it where the joined picture ends", () => {
    for (const format of ['webm', 'mp4', 'mov'] as const) {
      const args = buildJoinAudioArgs({ path: '/tmp/source.mp4', pin: { demuxer: 'mov' }, pictureSeconds: 12.48 }, ENCODER_PRESETS[format], `/tmp/audio.${format}`);
      expect(args[args.indexOf('-af') + 1]).toMatch(/^aresample=async=1:first_pts=0,atrim=end=12.48(,|$)/);
    }
  });

  it('cut the audio before a late picture, as the single run does', () => {
    const videoStart = { pts: 6400, timeBase: [1, 12800] as const, fileStartMicros: 0 };
    const args = buildJoinAudioArgs({ path: '/tmp/source.mp4', pin: { demuxer: 'mov' }, videoStart, pictureSeconds: 10 }, ENCODER_PRESETS.mp4, '/tmp/audio.mp4');
    expect(args.join(' ')).toContain('-itsoffset -0.500000 -i /tmp/source.mp4');
  });

  it('bring a GIF of chunks above 50 fps to 50, as the single run does', () => {
    const filterOf = (fps: number) => {
      const args = buildJoinGifArgs('/tmp/list.txt', '/tmp/palette.png', ENCODER_PRESETS.gif, '/tmp/out.gif', fps);
      return args[args.indexOf('-filter_complex') + 1];
    };
    expect(filterOf(60)).toBe('[0:v]format=rgba[frames];[frames]fps=50[gifrate];[gifrate][1:v]paletteuse=dither=bayer:bayer_scale=3[gif]');
    expect(filterOf(50)).toBe('[0:v]format=rgba[frames];[frames][1:v]paletteuse=dither=bayer:bayer_scale=3[gif]');
  });

  it('bring a WebP of chunks above 50 fps to 50, and read the chunks of WebP, PNG and GIF with their matrix, as the single run does', () => {
    const filterOf = (format: 'webp' | 'png_sequence', fps: number) => {
      const args = buildJoinFramesArgs('/tmp/list.txt', ENCODER_PRESETS[format], '/tmp/out', fps, 'bt709');
      return args[args.indexOf('-vf') + 1];
    };
    expect(filterOf('webp', 120)).toBe('scale=in_color_matrix=bt709:out_color_matrix=bt601:in_range=tv:out_range=tv,fps=50,format=yuva420p');
    expect(filterOf('webp', 50)).toBe('scale=in_color_matrix=bt709:out_color_matrix=bt601:in_range=tv:out_range=tv,format=yuva420p');
    expect(filterOf('png_sequence', 120)).toBe('scale=in_color_matrix=bt709:out_color_matrix=bt709,format=rgba');
    const gif = buildJoinGifArgs('/tmp/list.txt', '/tmp/palette.png', ENCODER_PRESETS.gif, '/tmp/out.gif', 25, 'bt709');
    expect(gif[gif.indexOf('-filter_complex') + 1]).toMatch(/^\[0:v\]scale=in_color_matrix=bt709:out_color_matrix=bt709,format=rgba\[frames\];/);
    const palette = buildJoinPaletteArgs('/tmp/list.txt', '/tmp/palette.png', 'bt709');
    expect(palette[palette.indexOf('-vf') + 1]).toMatch(/^scale=in_color_matrix=bt709:out_color_matrix=bt709,format=rgba,palettegen/);
  });
});
