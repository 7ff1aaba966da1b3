import { FfprobeOutput, parseFrameRate, parseProbeOutput } from '../../../src/engine/media/probe';

const stream = (overrides: Record<string, unknown> = {}) => ({
  codec_type: 'video',
  codec_name: 'h264',
  width: 1920,
  height: 1080,
  pix_fmt: 'yuv420p',
  r_frame_rate: '30000/1001',
  avg_frame_rate: '30000/1001',
  nb_frames: '300',
  ...overrides,
});
const output = (video: Record<string, unknown>, extra: FfprobeOutput['streams'] = []): FfprobeOutput => ({
  streams: [video, ...extra],
  format: { format_name: 'mov,mp4,m4a,3gp,3g2,mj2', duration: '10.010000' },
});

describe('parseProbeOutput', () => {
  it('reads a plain H.264 mp4', () => {
    expect(parseProbeOutput(output(stream(), [{ codec_type: 'audio', codec_name: 'aac' }]))).toEqual({
      durationSeconds: 10.01,
      fps: 30000 / 1001,
      width: 1920,
      height: 1080,
      rotation: 0,
      frameCount: 300,
      hasAudio: true,
      hasAlpha: false,
      videoCodec: 'h264',
      formatName: 'mov,mp4,m4a,3gp,3g2,mj2',
      videoStream: 0,
      colourMatrix: 'bt709',
    });
  });

  it("reads the pictures' YCbCr matrix from the stream's tag, else by their height, as players do; HDR is tone-mapped to BT.709", () => {
    expect(parseProbeOutput(output(stream({ color_space: 'smpte170m' }))).colourMatrix).toBe('bt601');
    expect(parseProbeOutput(output(stream({ color_space: 'bt709', height: 480 }))).colourMatrix).toBe('bt709');
    expect(parseProbeOutput(output(stream({ height: 576 }))).colourMatrix).toBe('bt601');
    expect(parseProbeOutput(output(stream({ height: 720, color_space: 'unknown' }))).colourMatrix).toBe('bt709');
    expect(parseProbeOutput(output(stream({ color_space: 'bt2020nc' }))).colourMatrix).toBe('bt2020');
    expect(parseProbeOutput(output(stream({ color_space: 'bt2020nc', color_transfer: 'smpte2084', color_primaries: 'bt2020' }))).colourMatrix).toBe('bt709');
  });

  it("takes the video stream's duration over the container's, which the longest stream sets (audio past the picture)", () => {
    const audio = { codec_type: 'audio', codec_name: 'aac', duration: '20.000000' };
    const longAudio = { streams: [stream({ duration: '4.000000', nb_frames: '120' }), audio], format: { format_name: 'mov,mp4,m4a,3gp,3g2,mj2', duration: '20.000000' } };
    expect(parseProbeOutput(longAudio)).toMatchObject({ durationSeconds: 4, frameCount: 120 });
    const matroska = { streams: [stream({ nb_frames: undefined, tags: { DURATION: '00:00:04.000000000' } }), audio], format: { format_name: 'matroska,webm', duration: '20.000000' } };
    expect(parseProbeOutput(matroska).durationSeconds).toBe(4);
  });

  it("takes Matroska's durations, which say where the stream ends counted from 0, from the video's first timestamp", () => {
    const startingLate = stream({ nb_frames: undefined, avg_frame_rate: '25/1', r_frame_rate: '25/1', start_pts: 2500, time_base: '1/1000', tags: { DURATION: '00:00:14.500000000' } });
    const webm = { streams: [startingLate], format: { format_name: 'matroska,webm', duration: '14.500000', start_time: '2.500000' } };
    expect(parseProbeOutput(webm)).toMatchObject({ durationSeconds: 12, frameCount: 300 });
    expect(parseProbeOutput({ ...webm, streams: [{ ...startingLate, tags: {} }] }).durationSeconds).toBe(12);
    // elsewhere the container's duration is already a length (mp4's movie, a transport stream's span)
    const mp4 = { streams: [{ ...startingLate, tags: {} }], format: { format_name: 'mov,mp4,m4a,3gp,3g2,mj2', duration: '12.000000', start_time: '2.500000' } };
    expect(parseProbeOutput(mp4).durationSeconds).toBe(12);
  });

  describe('which video stream it reads', () => {
    const format = { format_name: 'mov,mp4,m4a,3gp,3g2,mj2', duration: '10.010000' };
    const thumbnail = { index: 0, codec_type: 'video', codec_name: 'mjpeg', width: 320, height: 240, avg_frame_rate: '25/1', r_frame_rate: '25/1', nb_frames: '1' };
    const cover = { index: 1, codec_type: 'video', codec_name: 'png', width: 600, height: 600, avg_frame_rate: '25/1', r_frame_rate: '25/1', disposition: { attached_pic: 1 } };

    it('passes over cover art and a one-picture thumbnail track before the moving one', () => {
      const parsed = parseProbeOutput({ streams: [thumbnail, cover, { codec_type: 'audio', index: 2 }, stream({ index: 3 })], format });
      expect(parsed).toMatchObject({ videoStream: 3, width: 1920, height: 1080, frameCount: 300, videoCodec: 'h264' });
    });

    it('reads a file of one still picture as a one-frame video, but never cover art alone', () => {
      expect(parseProbeOutput({ streams: [thumbnail], format })).toMatchObject({ videoStream: 0, width: 320, frameCount: 1 });
      expect(() => parseProbeOutput({ streams: [cover], format })).toThrow(expect.objectContaining({ code: 'input_invalid' }));
    });

    it('reads a many-frame Motion JPEG stream as video', () => {
      const motionJpeg = { ...thumbnail, nb_frames: '250' };
      expect(parseProbeOutput({ streams: [motionJpeg, stream({ index: 1 })], format })).toMatchObject({ videoStream: 0, videoCodec: 'mjpeg' });
    });
  });

  it('swaps the display size for quarter turns: display matrix (counter-clockwise) and rotate tag', () => {
    const phone = parseProbeOutput(output(stream({ side_data_list: [{ side_data_type: 'Display Matrix', rotation: -90 }] })));
    expect([phone.rotation, phone.width, phone.height]).toEqual([90, 1080, 1920]);
    const tagged = parseProbeOutput(output(stream({ tags: { rotate: '270' } })));
    expect([tagged.rotation, tagged.width, tagged.height]).toEqual([270, 1080, 1920]);
    const upsideDown = parseProbeOutput(output(stream({ side_data_list: [{ rotation: 180 }] })));
    expect([upsideDown.rotation, upsideDown.width]).toEqual([180, 1920]);
    expect(parseProbeOutput(output(stream({ tags: { rotate: '89.5' } }))).rotation).toBe(90);
    expect(parseProbeOutput(output(stream({ tags: { rotate: '-359.6' } }))).rotation).toBe(0);
  });

  it('keeps the size of a picture tilted by another angle, which ffmpeg turns within its own size (it was taken for a quarter turn: the job failed)', () => {
    const tilted = parseProbeOutput(output(stream({ tags: { rotate: '60' } })));
    expect([tilted.rotation, tilted.width, tilted.height]).toEqual([60, 1920, 1080]);
    const matrix = parseProbeOutput(output(stream({ side_data_list: [{ rotation: 45 }] })));
    expect([matrix.rotation, matrix.width, matrix.height]).toEqual([315, 1920, 1080]);
  });

  it('detects VP9 alpha in WebM (alpha_mode tag) and asks for the libvpx decoder', () => {
    const info = parseProbeOutput({
      streams: [stream({ codec_name: 'vp9', nb_frames: undefined, tags: { alpha_mode: '1', DURATION: '00:00:04.000000000' } })],
      format: { format_name: 'matroska,webm' },
    });
    expect(info).toMatchObject({ hasAlpha: true, alphaDecoder: 'libvpx-vp9', durationSeconds: 4, frameCount: 120 });
  });

  it('takes ProRes 4444 alpha from the pixel format, read by ffmpeg\'s own decoder', () => {
    const prores = parseProbeOutput(output(stream({ codec_name: 'prores', pix_fmt: 'yuva444p10le' })));
    expect(prores.hasAlpha).toBe(true);
    expect(prores.alphaDecoder).toBeUndefined();
  });

  it("reads a VP8 WebM's alpha with libvpx (ffmpeg's own VP8 decoder dropped it), and VP8 without alpha with ffmpeg's own", () => {
    const vp8 = (tags: Record<string, string>) => parseProbeOutput({ streams: [stream({ codec_name: 'vp8', tags: { DURATION: '00:00:04.000000000', ...tags } })], format: { format_name: 'matroska,webm' } });
    expect(vp8({ alpha_mode: '1' })).toMatchObject({ hasAlpha: true, alphaDecoder: 'libvpx' });
    expect(vp8({}).alphaDecoder).toBeUndefined();
  });

  it('reads HDR from the colour tags (PQ, HLG), taking BT.2020 where primaries or matrix are untagged or unknown', () => {
    const hdrOf = (tags: Record<string, string>) => parseProbeOutput(output(stream({ pix_fmt: 'yuv420p10le', ...tags }))).hdr;
    expect(hdrOf({ color_transfer: 'smpte2084', color_primaries: 'bt2020', color_space: 'bt2020nc' })).toEqual({ transfer: 'smpte2084', primaries: 'bt2020', matrix: 'bt2020nc' });
    expect(hdrOf({ color_transfer: 'arib-std-b67', color_primaries: 'bt709', color_space: 'bt709' })).toEqual({ transfer: 'arib-std-b67', primaries: 'bt709', matrix: 'bt709' });
    expect(hdrOf({ color_transfer: 'smpte2084', color_primaries: 'bt2020:x=1', color_space: 'unknown' })).toEqual({ transfer: 'smpte2084', primaries: 'bt2020', matrix: 'bt2020nc' });
    expect(hdrOf({ color_transfer: 'bt709', color_primaries: 'bt2020', color_space: 'bt2020nc' })).toBeUndefined();
    expect(hdrOf({})).toBeUndefined();
  });

  it('gives non-square pixels their display size in square ones, turned after stretching', () => {
    const hdv = parseProbeOutput(output(stream({ width: 1440, height: 1080, sample_aspect_ratio: '4:3' })));
    expect([hdv.width, hdv.height, hdv.anamorphic]).toEqual([1920, 1080, true]);
    const turned = parseProbeOutput(output(stream({ width: 1440, height: 1080, sample_aspect_ratio: '4:3', tags: { rotate: '90' } })));
    expect([turned.width, turned.height]).toEqual([1080, 1920]);
    for (const square of ['1:1', '0:1', '1000:999', '100:1', 'N/A', undefined]) {
      const video = parseProbeOutput(output(stream({ sample_aspect_ratio: square })));
      expect([video.width, video.anamorphic]).toEqual([1920, undefined]);
    }
  });

  it('marks full range where the pixel format does not say it (yuv, not yuvj), and nowhere else', () => {
    const fullRangeOf = (pix_fmt: string, color_range?: string) => parseProbeOutput(output(stream({ pix_fmt, color_range }))).fullRange;
    expect([fullRangeOf('yuv420p10le', 'pc'), fullRangeOf('yuv444p', 'pc'), fullRangeOf('yuv420p', 'pc')]).toEqual([true, true, true]);
    expect([fullRangeOf('yuvj420p', 'pc'), fullRangeOf('yuv420p10le', 'tv'), fullRangeOf('yuv420p'), fullRangeOf('rgb24', 'pc'), fullRangeOf('gray', 'pc')]).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });

  it('reads interlacing from the field order; progressive and untagged streams are not', () => {
    for (const order of ['tt', 'bb', 'tb', 'bt']) expect(parseProbeOutput(output(stream({ field_order: order }))).interlaced).toBe(true);
    for (const order of ['progressive', 'unknown', undefined]) expect(parseProbeOutput(output(stream({ field_order: order }))).interlaced).toBeUndefined();
  });

  it('falls back to r_frame_rate when the average is unknown', () => {
    expect(parseProbeOutput(output(stream({ avg_frame_rate: '0/0', r_frame_rate: '30/1' }))).fps).toBe(30);
  });

  it.each([
    ['no streams', { streams: [], format: { duration: '1' } }],
    ['audio only', { streams: [{ codec_type: 'audio' }], format: { duration: '1' } }],
    ['no duration', { streams: [stream()], format: {} }],
    ['no frame rate', output(stream({ avg_frame_rate: '0/0', r_frame_rate: '0/0' }))],
  ])('refuses %s as input_invalid', (_name, json) => {
    expect(() => parseProbeOutput(json as FfprobeOutput)).toThrow(expect.objectContaining({ code: 'input_invalid' }));
  });
});

describe('the rate frames are read at', () => {
  const read = (rates: Record<string, unknown>) => parseProbeOutput(output(stream(rates)));

  it('reads a variable-rate video at its nominal rate, not its average (its moving parts would judder)', () => {
    // a phone's 30 fps clip that dropped to 20 fps in low light for a while: 26 fps on average
    expect(read({ r_frame_rate: '30/1', avg_frame_rate: '26/1', nb_frames: '260' })).toMatchObject({ fps: 30, frameCount: 300 });
    // a nominal rate half again the average is still believed
    expect(read({ r_frame_rate: '30/1', avg_frame_rate: '20/1' })).toMatchObject({ fps: 30 });
  });

  it('reads a clip with a long pause at its nominal rate where most of its frames follow each other at that rate (at its average, half its moving frames were lost)', () => {
    // 61 frames at 30 fps, one of them held for 3 s: 12.1 fps on average
    const held = { r_frame_rate: '30/1', avg_frame_rate: '1830/151', nb_frames: '61' };
    expect(parseProbeOutput(output(stream(held)), 1 / 30)).toMatchObject({ fps: 30 });
    expect(parseProbeOutput(output(stream({ ...held, r_frame_rate: '30000/1001' })), 0.033)).toMatchObject({ fps: 30000 / 1001 }); // a 1 ms timebase's rounding
    // the packets follow each other at another rate: the nominal one is not the frames'
    expect(parseProbeOutput(output(stream(held)), 1 / 12)).toMatchObject({ fps: 1830 / 151 });
    expect(parseProbeOutput(output(stream({ ...held, r_frame_rate: '1000/1' })), 1 / 30)).toMatchObject({ fps: 1830 / 151 });
    expect(parseProbeOutput(output(stream(held)))).toMatchObject({ fps: 1830 / 151 });
  });

  it('keeps the average where the nominal rate is not believable as a frame rate', () => {
    // a timebase's 1000 fps, a field rate twice the frame rate, a nominal rate below the average
    expect(read({ r_frame_rate: '1000/1', avg_frame_rate: '30/1', nb_frames: '300' })).toMatchObject({ fps: 30, frameCount: 300 });
    expect(read({ r_frame_rate: '50/1', avg_frame_rate: '25/1' })).toMatchObject({ fps: 25 });
    expect(read({ r_frame_rate: '30.1/1', avg_frame_rate: '20/1' })).toMatchObject({ fps: 20 });
    expect(read({ r_frame_rate: '24/1', avg_frame_rate: '30/1' })).toMatchObject({ fps: 30 });
  });
});

describe('parseFrameRate', () => {
  it('parses rationals and refuses nonsense', () => {
    expect(parseFrameRate('25/1')).toBe(25);
    expect(parseFrameRate('24')).toBe(24);
    expect(parseFrameRate('0/0')).toBeUndefined();
    expect(parseFrameRate('90000/1')).toBeUndefined();
    expect(parseFrameRate(undefined)).toBeUndefined();
  });
});
