import { ENCODER_PRESETS, ANIMATION_MAX_FPS } from '../../../src/engine/pipeline/encoders';
import {
  buildDecodeArgs,
  buildEncodeArgs,
  buildGifAnalysisArgs,
  buildGifRenderArgs,
  buildWebmAlphaArgs,
  buildWebmAudioArgs,
  buildWebmColourArgs,
  buildWebmEncodeArgs,
  CompositeSpec,
  encodesWebmApart,
  formatNumber,
  hexColor,
  SourceSpec,
  webmPartsIn,
} from '../../../src/engine/pipeline/ffmpeg-args';
import { computeLayout } from '../../../src/engine/pipeline/geometry';
import { OutputFormat } from '../../../src/engine/types';

const source: SourceSpec = { inputPath: '/in/clip.mp4', pin: { demuxer: 'mov', maxPixels: 18874368 }, videoStream: 0, pictureSeconds: 4, fps: 25, size: { width: 640, height: 360 } };

/** what every input gets before its -i: its demuxer, alone, and the file and pipe protocols only */
const pinned = (demuxer: string, maxPixels?: number) => [
  '-protocol_whitelist', 'file,pipe', '-format_whitelist', demuxer, '-f', demuxer, ...(maxPixels ? ['-max_pixels', String(maxPixels)] : []),
];
const SOURCE_PIN = pinned('mov', 18874368);
const RAW_MATTES = pinned('rawvideo');
const BG_JPEG = { type: 'image' as const, imagePath: '/in/bg.jpg', pin: { demuxer: 'jpeg_pipe', maxPixels: 80000000 } };

function spec(format: OutputFormat, overrides: Partial<CompositeSpec> = {}): CompositeSpec {
  const preset = ENCODER_PRESETS[format];
  return {
    source,
    matte: { width: 256, height: 144 },
    layout: computeLayout(source.size, undefined, preset.evenDimensions),
    background: { type: 'transparent' },
    preset,
    keepAudio: false,
    ...overrides,
  };
}

const FOREGROUND_640x360 =
  '[0:0]setpts=PTS-STARTPTS,fps=25,format=yuva420p[fgcolor];' +
  '[1:v]scale=640:360:flags=bilinear,format=gray[fgalpha];' +
  '[fgcolor][fgalpha]alphamerge[fg]';

describe('buildDecodeArgs', () => {
  it('decodes to packed RGB at the model size, with the shared constant-rate chain', () => {
    expect(buildDecodeArgs({ ...source, durationLimit: 1.5 }, { width: 256, height: 144 })).toEqual([
      '-v', 'error', '-nostdin',
      ...SOURCE_PIN, '-t', '1.5', '-i', '/in/clip.mp4',
      '-map', '0:0', '-an', '-sn', '-dn',
      '-vf', 'setpts=PTS-STARTPTS,fps=25,scale=256:144:flags=bilinear,format=rgb24',
      '-vsync', 'passthrough',
      '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1',
    ]);
  });

  it('opens a picture that starts after the file at the picture (decoder and encoder alike)', () => {
    const late = { ...source, videoStart: { pts: 6400, timeBase: [1, 12800] as const, fileStartMicros: 0 } };
    expect(buildDecodeArgs(late, { width: 64, height: 36 }).join(' ')).toContain('-itsoffset -0.500000 -i /in/clip.mp4');
    expect(buildEncodeArgs(spec('mov', { source: late }), '/out/o.mov').join(' ')).toContain('-itsoffset -0.500000 -i /in/clip.mp4');
  });

  it('decodes VP9 with alpha through libvpx, named before the input', () => {
    const args = buildDecodeArgs({ ...source, inputPath: '/in/a.webm', alphaDecoder: 'libvpx-vp9', fps: 30000 / 1001 }, { width: 64, height: 64 });
    expect(args.slice(0, 15)).toEqual(['-v', 'error', '-nostdin', ...SOURCE_PIN, '-c:v', 'libvpx-vp9', '-i', '/in/a.webm']);
    expect(args[args.indexOf('-vf') + 1]).toBe('setpts=PTS-STARTPTS,fps=29.97002997,scale=64:64:flags=bilinear,format=rgb24');
  });
});

describe("the source's YCbCr matrix", () => {
  const hd = { ...source, colourMatrix: 'bt709' as const };
  const filterOf = (args: string[]) => args[args.indexOf('-filter_complex') + 1];

  it('draws a colour or an image background with it and tags mp4, mov and webm with it', () => {
    const mp4 = buildEncodeArgs(spec('mp4', { source: hd, background: { type: 'color', rgb: [9, 162, 70] } }), '/out/o.mp4');
    expect(filterOf(mp4)).toContain('color=c=0x09A246:s=640x360:r=25,format=rgb24,scale=out_color_matrix=bt709:out_range=tv,format=yuv420p[bg]');
    expect(filterOf(mp4)).toContain('setparams=colorspace=bt709,');
    expect(mp4.join(' ')).toContain('-colorspace bt709 -color_primaries bt709 -color_trc bt709');
    const mov = buildEncodeArgs(spec('mov', { source: { ...source, colourMatrix: 'bt601' }, background: { type: 'image', imagePath: '/in/bg.png', pin: { demuxer: 'png_pipe' } } }), '/out/o.mov');
    expect(filterOf(mov)).toContain('setsar=1,format=rgb24,scale=out_color_matrix=bt601:out_range=tv,format=yuv444p,');
    expect(mov.join(' ')).toContain('-colorspace smpte170m -color_primaries smpte170m -color_trc smpte170m -movflags +write_colr');
    const parts = webmPartsIn('/tmp/w');
    expect(buildWebmColourArgs(spec('webm', { source: hd }), parts).join(' ')).toContain('-colorspace bt709 -color_primaries bt709 -color_trc bt709 -vsync passthrough -f ivf -y /tmp/w/webm-color.ivf');
    expect(buildWebmEncodeArgs(spec('webm', { source: hd, background: { type: 'color', rgb: [0, 0, 0] } }), parts).join(' ')).toContain('-colorspace bt709 -color_primaries bt709 -color_trc bt709 -vsync passthrough -f ivf -y /tmp/w/webm-color.ivf');
  });

  it('converts webp, which decoders read as BT.601, to BT.601; leaves GIF and PNG untagged (RGB)', () => {
    expect(filterOf(buildEncodeArgs(spec('webp', { source: hd }), '/out/o.webp'))).toContain('scale=in_color_matrix=bt709:out_color_matrix=bt601:in_range=tv:out_range=tv,format=yuva420p[out]');
    expect(buildEncodeArgs(spec('webp', { source: hd }), '/out/o.webp')).not.toContain('-colorspace');
    const png = buildEncodeArgs(spec('png_sequence', { source: hd, background: { type: 'color', rgb: [9, 162, 70] } }), '/out/f_%05d.png');
    expect(png).not.toContain('-colorspace');
    expect(filterOf(png)).toContain('color=c=0x09A246:s=640x360:r=25,format=rgb24[bg]');
  });

  it('turns the source into RGB, or an RGB source into YCbCr, in a scale of its own that names the matrix (a tag alone was not read: untagged HD became RGB with BT.601)', () => {
    expect(filterOf(buildEncodeArgs(spec('png_sequence', { source: hd }), '/out/f_%05d.png'))).toContain('setparams=colorspace=bt709,scale=in_color_matrix=bt709:out_color_matrix=bt709,format=rgba[fgcolor]');
    const composed = computeLayout(source.size, { canvas: { width: 800, height: 800 }, foreground: { anchor: 'center', scale: 0.5, offset: { x: 0, y: 0 } } }, false);
    expect(filterOf(buildEncodeArgs(spec('gif', { source: hd, layout: composed }), '/out/o.gif'))).toContain('scale=400:225:flags=bilinear:in_color_matrix=bt709:out_color_matrix=bt709,');
    expect(buildDecodeArgs(hd, { width: 64, height: 36 }).join(' ')).toContain('scale=64:36:flags=bilinear:in_color_matrix=bt709:out_color_matrix=bt709,format=rgb24');
    expect(filterOf(buildEncodeArgs(spec('png_sequence', { source }), '/out/f_%05d.png'))).not.toContain('color_matrix');
  });
});

describe('an image background', () => {
  const filterOf = (args: string[]) => args[args.indexOf('-filter_complex') + 1];
  const image = (extra: object) => ({ type: 'image' as const, imagePath: '/in/bg', pin: { demuxer: 'image2' }, ...extra });

  it('is turned upright by its EXIF orientation before it is fitted', () => {
    expect(filterOf(buildEncodeArgs(spec('mp4', { background: image({ orientation: 6 }) }), '/out/o.mp4'))).toContain('[2:v]transpose=1,scale=');
    expect(filterOf(buildEncodeArgs(spec('mp4', { background: image({ orientation: 3 }) }), '/out/o.mp4'))).toContain('[2:v]hflip,vflip,scale=');
    expect(filterOf(buildEncodeArgs(spec('mp4', { background: image({}) }), '/out/o.mp4'))).toContain('[2:v]scale=');
  });

  it('that may hold transparency is laid over black first', () => {
    expect(filterOf(buildEncodeArgs(spec('mp4', { background: image({ mayBeTransparent: true }) }), '/out/o.mp4'))).toContain(
      'format=rgba[bgimage];color=c=black:s=640x360:r=25:d=1[bgunder];[bgunder][bgimage]overlay=format=rgb:shortest=1,',
    );
  });
});

describe('the video stream read', () => {
  it('both sides read the stream the probe chose, by its index in the file', () => {
    const third = { ...source, videoStream: 2 };
    const decode = buildDecodeArgs(third, { width: 64, height: 36 });
    expect(decode[decode.indexOf('-map') + 1]).toBe('0:2');
    for (const decontaminate of [false, true]) {
      const encode = buildEncodeArgs(spec('mov', { source: third, decontaminate }), '/out/o.mov');
      expect(encode[encode.indexOf('-filter_complex') + 1]).toMatch(/^\[0:2\]setpts/);
    }
  });
});

describe('non-square pixels', () => {
  it('the encoder scales them to the square ones of the display size, even where that is the size already', () => {
    const anamorphic = { ...source, anamorphic: true };
    const encode = buildEncodeArgs(spec('mov', { source: anamorphic }), '/out/o.mov');
    expect(encode[encode.indexOf('-filter_complex') + 1]).toContain('[0:0]setpts=PTS-STARTPTS,fps=25,scale=640:360:flags=bilinear,setsar=1,format=yuva444p[fgcolor];');
    const decode = buildDecodeArgs(anamorphic, { width: 64, height: 36 });
    expect(decode[decode.indexOf('-vf') + 1]).toBe('setpts=PTS-STARTPTS,fps=25,scale=64:36:flags=bilinear,format=rgb24');
  });
});

describe('interlaced input', () => {
  it('is deinterlaced first on both sides, a frame for each frame', () => {
    const interlaced = { ...source, interlaced: true };
    const decode = buildDecodeArgs(interlaced, { width: 64, height: 64 });
    expect(decode[decode.indexOf('-vf') + 1]).toBe('yadif=mode=send_frame:parity=auto:deint=interlaced,setpts=PTS-STARTPTS,fps=25,scale=64:64:flags=bilinear,format=rgb24');
    const encode = buildEncodeArgs(spec('mov', { source: interlaced }), '/out/o.mov');
    expect(encode[encode.indexOf('-filter_complex') + 1]).toContain('[0:0]yadif=mode=send_frame:parity=auto:deint=interlaced,setpts=PTS-STARTPTS,fps=25,format=yuva444p[fgcolor];');
  });
});

describe('HDR input', () => {
  const hdrSource: SourceSpec = { ...source, hdr: { transfer: 'arib-std-b67', primaries: 'bt2020', matrix: 'bt2020nc' } };
  const toneMap =
    'setparams=color_primaries=bt2020:color_trc=arib-std-b67:colorspace=bt2020nc,zscale=t=linear:npl=203,format=gbrpf32le,zscale=p=709,tonemap=mobius:param=0.5:desat=0,zscale=t=709:m=709:r=tv';

  it('the decoder tone-maps at the model size, after scaling', () => {
    const args = buildDecodeArgs(hdrSource, { width: 256, height: 144 });
    expect(args[args.indexOf('-vf') + 1]).toBe(`setpts=PTS-STARTPTS,fps=25,scale=256:144:flags=bilinear,${toneMap},format=rgb24`);
  });

  it('the encoder tone-maps the source before anything reads its colour, with or without the predicted foreground', () => {
    const plain = buildEncodeArgs(spec('mov', { source: hdrSource }), '/out/o.mov');
    expect(plain[plain.indexOf('-filter_complex') + 1]).toContain(`[0:0]setpts=PTS-STARTPTS,fps=25,${toneMap},format=yuva444p[fgcolor];`);
    const decontaminated = buildEncodeArgs(spec('mov', { source: hdrSource, background: BG_JPEG, decontaminate: true }), '/out/o.mov');
    expect(decontaminated[decontaminated.indexOf('-filter_complex') + 1]).toContain(`[0:0]setpts=PTS-STARTPTS,fps=25,${toneMap},format=gbrp[sourcecolor];`);
  });
});

describe('buildEncodeArgs', () => {
  it('webm, transparent, with audio: colour and alpha as two VP9 streams with the same settings, opus apart', () => {
    const vp9 = [
      '-c:v', 'libvpx-vp9', '-pix_fmt', 'yuv420p', '-deadline', 'realtime', '-cpu-used', '8', '-row-mt', '1',
      '-crf', '32', '-b:v', '0', '-auto-alt-ref', '0', '-g', '125', '-keyint_min', '125', '-lag-in-frames', '0',
    ];
    expect(buildWebmEncodeArgs(spec('webm', { keepAudio: true }), webmPartsIn('/tmp/s'))).toEqual([
      '-v', 'error', '-nostdin',
      ...SOURCE_PIN, '-i', '/in/clip.mp4',
      ...RAW_MATTES, '-pix_fmt', 'gray', '-video_size', '256x144', '-framerate', '25', '-fpsprobesize', '0', '-analyzeduration', '0', '-i', 'pipe:3',
      '-filter_complex',
      `${FOREGROUND_640x360};[fg]format=yuva420p[out];` +
        '[out]split=2[colorsource][alphasource];[colorsource]format=yuv420p[color];[alphasource]alphaextract,format=yuv420p[alpha]',
      '-map', '[color]', ...vp9, '-vsync', 'passthrough', '-f', 'ivf', '-y', '/tmp/s/webm-color.ivf',
      '-map', '[alpha]', ...vp9, '-vsync', 'passthrough', '-f', 'ivf', '-y', '/tmp/s/webm-alpha.ivf',
      '-map', '0:a:0', '-c:a', 'libopus', '-b:a', '128k', '-af', 'aresample=async=1:first_pts=0,atrim=end=4,aformat=channel_layouts=mono|stereo|3.0|quad|5.0|5.1|6.1|7.1', '-f', 'webm', '-y', '/tmp/s/webm-audio.webm',
    ]);
  });

  it('webm, transparent, the foreground the whole canvas: the colour from the source alone and the alpha from the mattes alone, each in an ffmpeg of its own', () => {
    const vp9 = [
      '-c:v', 'libvpx-vp9', '-pix_fmt', 'yuv420p', '-deadline', 'realtime', '-cpu-used', '8', '-row-mt', '1',
      '-crf', '32', '-b:v', '0', '-auto-alt-ref', '0', '-g', '125', '-keyint_min', '125', '-lag-in-frames', '0',
    ];
    const webm = spec('webm', { keepAudio: true });
    expect(encodesWebmApart(webm)).toBe(true);
    expect(buildWebmColourArgs(webm, webmPartsIn('/tmp/s'))).toEqual([
      '-v', 'error', '-nostdin',
      ...SOURCE_PIN, '-i', '/in/clip.mp4',
      '-filter_complex', '[0:0]setpts=PTS-STARTPTS,fps=25,format=yuv420p[color]',
      '-map', '[color]', ...vp9, '-vsync', 'passthrough', '-f', 'ivf', '-y', '/tmp/s/webm-color.ivf',
      '-map', '0:a:0', '-c:a', 'libopus', '-b:a', '128k', '-af', 'aresample=async=1:first_pts=0,atrim=end=4,aformat=channel_layouts=mono|stereo|3.0|quad|5.0|5.1|6.1|7.1', '-f', 'webm', '-y', '/tmp/s/webm-audio.webm',
    ]);
    // the matte's values as the alpha plane's, 0-255 (not squeezed into 16-235 as gray becomes yuv420p)
    expect(buildWebmAlphaArgs(webm, webmPartsIn('/tmp/s'))).toEqual([
      '-v', 'error', '-nostdin',
      ...RAW_MATTES, '-pix_fmt', 'gray', '-video_size', '256x144', '-framerate', '25', '-fpsprobesize', '0', '-analyzeduration', '0', '-i', 'pipe:3',
      '-filter_complex', '[0:v]scale=640:360:flags=bilinear,format=gray,setrange=tv,format=yuv420p[alpha]',
      '-map', '[alpha]', ...vp9, '-vsync', 'passthrough', '-f', 'ivf', '-y', '/tmp/s/webm-alpha.ivf',
    ]);
  });

  it('webm stays in one encoder where the colour needs the matte: over a colour or an image, composed on a larger canvas, or with the predicted foreground', () => {
    const layout = computeLayout(source.size, { canvas: { width: 800, height: 800 }, foreground: { anchor: 'top-left', scale: 0.5, offset: { x: 0, y: 0 } } }, false);
    expect(encodesWebmApart(spec('webm', { background: { type: 'color', rgb: [9, 162, 70] } }))).toBe(false);
    expect(encodesWebmApart(spec('webm', { background: BG_JPEG }))).toBe(false);
    expect(encodesWebmApart(spec('webm', { decontaminate: true }))).toBe(false);
    expect(encodesWebmApart(spec('webm', { layout }))).toBe(false);
    expect(encodesWebmApart(spec('webp'))).toBe(false);
  });

  it('webm with audio, last step: stream copies of the joined video and the audio', () => {
    expect(buildWebmAudioArgs(webmPartsIn('/tmp/s'), '/out/.x.partial')).toEqual([
      '-v', 'error', '-nostdin', ...pinned('matroska'), '-i', '/tmp/s/webm-joined.webm', ...pinned('matroska'), '-i', '/tmp/s/webm-audio.webm',
      '-map', '0:v:0', '-map', '1:a:0', '-c', 'copy', '-f', 'webm', '-y', '/out/.x.partial',
    ]);
  });

  it('mp4 over a color, odd input grown to even: overlay on a color canvas, aac, faststart', () => {
    const odd: SourceSpec = { ...source, size: { width: 201, height: 113 }, durationLimit: 0.5 };
    const args = buildEncodeArgs(
      spec('mp4', { source: odd, matte: { width: 201, height: 113 }, layout: computeLayout(odd.size, undefined, true), background: { type: 'color', rgb: [9, 162, 70] }, keepAudio: true }),
      '/out/o.mp4',
    );
    expect(args).toEqual([
      '-v', 'error', '-nostdin',
      ...SOURCE_PIN, '-t', '0.5', '-i', '/in/clip.mp4',
      ...RAW_MATTES, '-pix_fmt', 'gray', '-video_size', '201x113', '-framerate', '25', '-fpsprobesize', '0', '-analyzeduration', '0', '-i', 'pipe:3',
      '-filter_complex',
      '[0:0]setpts=PTS-STARTPTS,fps=25,format=yuva420p[fgcolor];' +
        '[1:v]format=gray[fgalpha];' +
        '[fgcolor][fgalpha]alphamerge[fg];' +
        'color=c=0x09A246:s=202x114:r=25,format=rgb24,format=yuv420p[bg];' +
        '[bg][fg]overlay=x=0:y=0:format=yuv420:shortest=1,format=yuv420p[out]',
      '-map', '[out]',
      '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-preset', 'veryfast', '-crf', '20',
      '-map', '0:a:0', '-c:a', 'aac', '-b:a', '160k', '-af', 'aresample=async=1:first_pts=0,atrim=end=4', '-max_muxing_queue_size', '8192',
      '-movflags', '+faststart',
      '-f', 'mp4', '-y', '/out/o.mp4',
    ]);
  });

  it('mov over an image, composed: the image is scaled to cover, cropped, looped; PCM audio', () => {
    const layout = computeLayout(source.size, { canvas: { width: 1080, height: 1920 }, foreground: { anchor: 'bottom-center', scale: 0.5, offset: { x: 0, y: -100 } } }, false);
    const args = buildEncodeArgs(spec('mov', { layout, background: BG_JPEG, keepAudio: true }), '/out/o.mov');
    expect(args).toEqual([
      '-v', 'error', '-nostdin',
      ...SOURCE_PIN, '-i', '/in/clip.mp4',
      ...RAW_MATTES, '-pix_fmt', 'gray', '-video_size', '256x144', '-framerate', '25', '-fpsprobesize', '0', '-analyzeduration', '0', '-i', 'pipe:3',
      ...pinned('jpeg_pipe', 80000000), '-i', '/in/bg.jpg',
      '-filter_complex',
      '[0:0]setpts=PTS-STARTPTS,fps=25,scale=540:304:flags=bilinear,format=yuva444p[fgcolor];' +
        '[1:v]scale=540:304:flags=bilinear,format=gray[fgalpha];' +
        '[fgcolor][fgalpha]alphamerge[fg];' +
        '[2:v]scale=1080:1920:force_original_aspect_ratio=increase,crop=1080:1920,setsar=1,format=rgb24,format=yuv444p,loop=loop=-1:size=1,setpts=N/(25*TB)[bg];' +
        '[bg][fg]overlay=x=270:y=1516:format=yuv444:shortest=1,format=yuva444p10le[out]',
      '-map', '[out]',
      '-c:v', 'prores_ks', '-profile:v', '4444', '-pix_fmt', 'yuva444p10le', '-alpha_bits', '8', '-vendor', 'apl0',
      '-map', '0:a:0', '-c:a', 'pcm_s16le', '-af', 'aresample=async=1:first_pts=0,atrim=end=4', '-max_muxing_queue_size', '8192',
      '-f', 'mov', '-y', '/out/o.mov',
    ]);
  });

  it('mov over an image with the predicted foreground: its RGB24 on pipe:4 after the image, merged into the soft edge only', () => {
    const args = buildEncodeArgs(spec('mov', { background: BG_JPEG, decontaminate: true }), '/out/o.mov');
    const inputs = args.slice(0, args.indexOf('-filter_complex'));
    expect(inputs.slice(-18)).toEqual([...pinned('rawvideo'), '-pix_fmt', 'rgb24', '-video_size', '256x144', '-framerate', '25', '-fpsprobesize', '0', '-analyzeduration', '0', '-i', 'pipe:4']);
    expect(inputs.indexOf('/in/bg.jpg')).toBeLessThan(inputs.indexOf('pipe:4'));
    expect(args[args.indexOf('-filter_complex') + 1]).toContain(
      '[0:0]setpts=PTS-STARTPTS,fps=25,format=gbrp[sourcecolor];' +
        '[3:v]scale=640:360:flags=bilinear,format=gbrp[predictedcolor];' +
        '[1:v]scale=640:360:flags=bilinear,format=gray,split=2[fgalpha][edgesource];' +
        "[edgesource]lut=c0='if(lt(val,250),255,0)',format=gbrp[edge];" +
        '[sourcecolor][predictedcolor][edge]maskedmerge,format=yuva444p[fgcolor];' +
        '[fgcolor][fgalpha]alphamerge[fg];',
    );
  });

  it('webp, transparent, composed at the top-left of a larger canvas: padded, no audio', () => {
    const layout = computeLayout(source.size, { canvas: { width: 800, height: 800 }, foreground: { anchor: 'top-left', scale: 0.5, offset: { x: 0, y: 0 } } }, false);
    const args = buildEncodeArgs(spec('webp', { layout, keepAudio: true }), '/out/o.webp');
    expect(args.slice(args.indexOf('-filter_complex'))).toEqual([
      '-filter_complex',
      '[0:0]setpts=PTS-STARTPTS,fps=25,scale=400:225:flags=bilinear,format=yuva420p[fgcolor];' +
        '[1:v]scale=400:225:flags=bilinear,format=gray[fgalpha];' +
        '[fgcolor][fgalpha]alphamerge[fg];' +
        '[fg]pad=800:800:0:0:color=black@0,format=yuva420p[out]',
      '-map', '[out]',
      '-c:v', 'libwebp_anim', '-pix_fmt', 'yuva420p', '-lossless', '0', '-quality', '80', '-compression_level', '1',
      '-an',
      '-loop', '0',
      '-f', 'webp', '-y', '/out/o.webp',
    ]);
  });

  it('transparent with the foreground off the corner: overlay on a transparent canvas', () => {
    const layout = computeLayout(source.size, { canvas: { width: 640, height: 640 }, foreground: { anchor: 'center', scale: 1, offset: { x: 10, y: 0 } } }, false);
    const filter = buildEncodeArgs(spec('png_sequence', { layout }), '/tmp/f/frame_%05d.png');
    expect(filter.slice(filter.indexOf('-filter_complex') + 1)).toEqual([
      '[0:0]setpts=PTS-STARTPTS,fps=25,format=rgba[fgcolor];' +
        '[1:v]scale=640:360:flags=bilinear,format=gray[fgalpha];' +
        '[fgcolor][fgalpha]alphamerge[fg];' +
        'color=c=black@0:s=640x640:r=25,format=rgba[bg];' +
        '[bg][fg]overlay=x=10:y=140:format=rgb:shortest=1,format=rgba[out]',
      '-map', '[out]',
      '-c:v', 'png', '-pix_fmt', 'rgba', '-compression_level', '1',
      '-an',
      '-start_number', '0',
      '-f', 'image2', '-y', '/tmp/f/frame_%05d.png',
    ]);
  });
});

describe('GIF passes', () => {
  it('analysis: composites, gathers the palette and records the mattes losslessly', () => {
    expect(buildGifAnalysisArgs(spec('gif'), '/s/palette.png', '/s/mattes.mkv')).toEqual([
      '-v', 'error', '-nostdin',
      ...SOURCE_PIN, '-i', '/in/clip.mp4',
      ...RAW_MATTES, '-pix_fmt', 'gray', '-video_size', '256x144', '-framerate', '25', '-fpsprobesize', '0', '-analyzeduration', '0', '-i', 'pipe:3',
      '-filter_complex',
      '[1:v]split=2[mattes][recorded];' +
        '[0:0]setpts=PTS-STARTPTS,fps=25,format=rgba[fgcolor];' +
        '[mattes]scale=640:360:flags=bilinear,format=gray[fgalpha];' +
        '[fgcolor][fgalpha]alphamerge[fg];' +
        '[fg]format=rgba[out];' +
        '[out]palettegen=reserve_transparent=1:stats_mode=full[palette]',
      '-map', '[palette]', '-frames:v', '1', '-f', 'image2', '-y', '/s/palette.png',
      '-map', '[recorded]', '-c:v', 'ffv1', '-f', 'matroska', '-y', '/s/mattes.mkv',
    ]);
  });

  it('render: source + recorded mattes + palette; whole frames', () => {
    expect(buildGifRenderArgs(spec('gif'), '/s/palette.png', '/s/mattes.mkv', '/out/.o.gif.partial')).toEqual([
      '-v', 'error', '-nostdin',
      ...SOURCE_PIN, '-i', '/in/clip.mp4',
      ...pinned('matroska'), '-i', '/s/mattes.mkv',
      ...pinned('png_pipe'), '-i', '/s/palette.png',
      '-filter_complex',
      `${FOREGROUND_640x360.replace('yuva420p', 'rgba')};[fg]format=rgba[out];[out][2:v]paletteuse=dither=bayer:bayer_scale=3[gif]`,
      '-map', '[gif]',
      '-c:v', 'gif', '-gifflags', '0',
      '-loop', '0',
      '-f', 'gif', '-y', '/out/.o.gif.partial',
    ]);
  });

  it(`render above ${ANIMATION_MAX_FPS} fps: the frames brought to ${ANIMATION_MAX_FPS} before the palette (GIF delays are whole hundredths of a second)`, () => {
    const fast = spec('gif');
    const args = buildGifRenderArgs({ ...fast, source: { ...fast.source, fps: 120 } }, '/s/p.png', '/s/m.mkv', '/out/o.gif');
    expect(args[args.indexOf('-filter_complex') + 1]).toMatch(/;\[out\]fps=50\[gifrate\];\[gifrate\]\[2:v\]paletteuse=/);
    const fifty = buildGifRenderArgs({ ...fast, source: { ...fast.source, fps: ANIMATION_MAX_FPS } }, '/s/p.png', '/s/m.mkv', '/out/o.gif');
    expect(fifty[fifty.indexOf('-filter_complex') + 1]).toMatch(/;\[out\]\[2:v\]paletteuse=/);
  });

  it('render with an image background: the palette is input 3', () => {
    const args = buildGifRenderArgs(spec('gif', { background: { ...BG_JPEG, imagePath: '/in/bg.png' } }), '/s/p.png', '/s/m.mkv', '/out/o.gif');
    expect(args.filter((_, i) => args[i - 1] === '-i')).toEqual(['/in/clip.mp4', '/s/m.mkv', '/in/bg.png', '/s/p.png']);
    expect(args[args.indexOf('-filter_complex') + 1]).toMatch(/\[out\]\[3:v\]paletteuse=/);
  });
});

describe('every input is pinned', () => {
  const withImage = (format: OutputFormat) => spec(format, { background: BG_JPEG, keepAudio: true });
  const commands: Array<[string, string[]]> = [
    ['decode', buildDecodeArgs(source, { width: 64, height: 64 })],
    ['encode mov', buildEncodeArgs(withImage('mov'), '/out/o.mov')],
    ['encode mp4', buildEncodeArgs(withImage('mp4'), '/out/o.mp4')],
    ['encode webm', buildWebmEncodeArgs(withImage('webm'), webmPartsIn('/s'))],
    ['webm with audio', buildWebmAudioArgs(webmPartsIn('/s'), '/out/o.webm')],
    ['gif analysis', buildGifAnalysisArgs(withImage('gif'), '/s/p.png', '/s/m.mkv')],
    ['gif render', buildGifRenderArgs(withImage('gif'), '/s/p.png', '/s/m.mkv', '/out/o.gif')],
  ];

  it.each(commands)('%s: each -i follows its own demuxer, that demuxer alone, and file,pipe only', (_name, args) => {
    let optionsStart = 0;
    args.forEach((arg, i) => {
      if (arg !== '-i') return;
      const options = args.slice(optionsStart, i);
      const demuxer = options[options.indexOf('-f') + 1];
      expect(options).toEqual(expect.arrayContaining(['-f', '-format_whitelist', '-protocol_whitelist']));
      expect(options[options.indexOf('-format_whitelist') + 1]).toBe(demuxer);
      expect(options[options.indexOf('-protocol_whitelist') + 1]).toBe('file,pipe');
      optionsStart = i + 2;
    });
    expect(args.filter((arg) => arg === '-i').length).toBeGreaterThan(0);
  });
});

describe('formatting helpers', () => {
  it('writes colors as ffmpeg hex, clamped', () => {
    expect(hexColor([0, 71, 187])).toBe('0x0047BB');
    expect(hexColor([300, -4, 127.6])).toBe('0xFF0080');
  });

  it('writes numbers without exponent or float noise', () => {
    expect(formatNumber(25)).toBe('25');
    expect(formatNumber(30000 / 1001)).toBe('29.97002997');
    expect(formatNumber(0.1 + 0.2)).toBe('0.3');
  });
});
