import { imageDimensions, jpegOrientation } from '../../../src/engine/media/image-header';
import { pinArgs, pinFor } from '../../../src/engine/media/input-pin';
import { DEFAULT_MEDIA_LIMITS, decoderPixelCap, frameRateViolation, imageSizeViolation, MediaLimits, videoSizeViolation } from '../../../src/engine/media/limits';
import { EngineError } from '../../../src/engine/types';
import { buildDecodeCheckArgs, buildProbeArgs, refusedPictureSize, tidyToolMessage } from '../../../src/engine/media/probe';
import { describeContent, sniffImageType } from '../../../src/engine/media/sniff';
import { tailIsZipArchive } from '../../../src/engine/media/zip-polyglot';

const bytes = (...parts: (string | number[] | Buffer)[]) =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part))));
const u16le = (value: number) => [value & 0xff, value >> 8];
const u32be = (value: number) => [(value >>> 24) & 0xff, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff];

const PNG_HEAD = (width: number, height: number) => bytes([0x89], 'PNG\r\n\x1a\n', u32be(13), 'IHDR', u32be(width), u32be(height), [8, 6, 0, 0, 0]);
const GIF_HEAD = (width: number, height: number) => bytes('GIF89a', u16le(width), u16le(height), [0, 0, 0]);
const JPEG_HEAD = (width: number, height: number) =>
  bytes([0xff, 0xd8], [0xff, 0xe0], [0, 16], 'JFIF\0', [1, 1, 0, 0, 1, 0, 1, 0, 0], [0xff, 0xc0], [0, 17, 8], [height >> 8, height & 0xff, width >> 8, width & 0xff], [3], Buffer.alloc(9));
const WEBP_LOSSY_HEAD = (width: number, height: number) => bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8 ', [0, 0, 0, 0], [0, 0, 0], [0x9d, 0x01, 0x2a], u16le(width), u16le(height));
const WEBP_LOSSLESS_HEAD = (width: number, height: number) => {
  const bits = ((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14);
  return bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8L', [0, 0, 0, 0], [0x2f], [bits & 0xff, (bits >>> 8) & 0xff, (bits >>> 16) & 0xff, (bits >>> 24) & 0xff], [0, 0, 0, 0, 0]);
};
const WEBP_EXTENDED_HEAD = (width: number, height: number) =>
  bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8X', [10, 0, 0, 0], [0, 0, 0, 0], [(width - 1) & 0xff, ((width - 1) >> 8) & 0xff, (width - 1) >> 16], [(height - 1) & 0xff, ((height - 1) >> 8) & 0xff, (height - 1) >> 16]);

describe('sniffImageType', () => {
  it.each([
    ['PNG', PNG_HEAD(1, 1), 'image/png'],
    ['JPEG', JPEG_HEAD(1, 1), 'image/jpeg'],
    ['WebP (lossy)', WEBP_LOSSY_HEAD(1, 1), 'image/webp'],
    ['WebP (lossless)', WEBP_LOSSLESS_HEAD(1, 1), 'image/webp'],
    ['GIF', GIF_HEAD(1, 1), 'image/gif'],
  ])('recognises %s', (_name, head, type) => {
    expect(sniffImageType(head)).toBe(type);
  });

  it.each([
    ['an HLS playlist', bytes('#EXTM3U\n#EXTINF:1,\nfile:///etc/passwd\n')],
    ['SVG', bytes('<svg xmlns="http://www.w3.org/2000/svg"></svg>')],
    ['HTML', bytes('<!DOCTYPE html><html></html>')],
    ['a WAV (RIFF but not WebP)', bytes('RIFF', [0, 0, 0, 0], 'WAVEfmt ')],
    ['a PNG signature without IHDR', bytes([0x89], 'PNG\r\n\x1a\n', u32be(13), 'tEXt')],
    ['a video', bytes([0, 0, 0, 0x20], 'ftypisom', [0, 0, 2, 0])],
    ['nothing', bytes()],
  ])('refuses %s', (_name, head) => {
    expect(sniffImageType(head)).toBeUndefined();
  });
});

describe('describeContent (for refusal messages; never echoes the content)', () => {
  it.each([
    [bytes(), 'an empty file'],
    [bytes('#EXTM3U\n'), 'an HLS playlist'],
    [bytes('\xef\xbb\xbf  #extm3u\n'), 'an HLS playlist'],
    [bytes('ffconcat version 1.0\nfile /etc/passwd\n'), 'a concat script'],
    [bytes('<?xml version="1.0"?><svg/>'), 'an SVG image'],
    [bytes('<svg/>'), 'an SVG image'],
    [bytes('<html><body>'), 'an HTML page'],
    [bytes('PK\x03\x04rest'), 'a ZIP archive'],
    [PNG_HEAD(1, 1), 'a PNG image'],
    [bytes('root:x:0:0:root:/root:/bin/bash'), 'bytes of no accepted type'],
  ])('%#: %s', (head, description) => {
    expect(describeContent(head)).toBe(description);
  });
});

describe("jpegOrientation: a JPEG's EXIF orientation", () => {
  /** SOI, an APP1 Exif segment with one IFD0 entry (orientation), in `order` byte order */
  const withOrientation = (orientation: number, order: 'II' | 'MM') => {
    const tiff = Buffer.alloc(26);
    tiff.write(order, 0, 'latin1');
    const u16 = (value: number, at: number) => (order === 'II' ? tiff.writeUInt16LE(value, at) : tiff.writeUInt16BE(value, at));
    const u32 = (value: number, at: number) => (order === 'II' ? tiff.writeUInt32LE(value, at) : tiff.writeUInt32BE(value, at));
    u16(42, 2);
    u32(8, 4);
    u16(1, 8); // one entry
    u16(0x0112, 10);
    u16(3, 12); // SHORT
    u32(1, 14);
    u16(orientation, 18);
    const app1 = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
    const length = Buffer.alloc(2);
    length.writeUInt16BE(app1.length + 2);
    return Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe1]), length, app1, Buffer.from([0xff, 0xda, 0, 2])]);
  };

  it.each([6, 3, 8, 2])('reads orientation %d in either byte order', (orientation) => {
    expect(jpegOrientation(withOrientation(orientation, 'II'))).toBe(orientation);
    expect(jpegOrientation(withOrientation(orientation, 'MM'))).toBe(orientation);
  });

  it('says nothing for upright, absent, out of range or cut short', () => {
    expect(jpegOrientation(withOrientation(1, 'II'))).toBeUndefined();
    expect(jpegOrientation(withOrientation(9, 'MM'))).toBeUndefined();
    expect(jpegOrientation(Buffer.from([0xff, 0xd8, 0xff, 0xda, 0, 2]))).toBeUndefined();
    expect(jpegOrientation(withOrientation(6, 'II').subarray(0, 20))).toBeUndefined();
  });
});

describe('imageDimensions: the declared size from the header alone', () => {
  it.each([
    ['PNG', 'image/png', PNG_HEAD(30000, 20000)],
    ['GIF', 'image/gif', GIF_HEAD(30000, 20000)],
    ['JPEG', 'image/jpeg', JPEG_HEAD(30000, 20000)],
    ['WebP lossy', 'image/webp', WEBP_LOSSY_HEAD(16000, 12000)],
    ['WebP lossless', 'image/webp', WEBP_LOSSLESS_HEAD(16000, 12000)],
    ['WebP extended', 'image/webp', WEBP_EXTENDED_HEAD(30000, 20000)],
  ] as const)('%s', (name, type, head) => {
    const expected = name.startsWith('WebP l') ? { width: 16000, height: 12000 } : { width: 30000, height: 20000 };
    expect(imageDimensions(type, head)).toEqual(expected);
  });

  it('finds the JPEG frame header after metadata segments', () => {
    const exif = bytes([0xff, 0xe1], [0x10, 0x02], Buffer.alloc(0x1000));
    const jpeg = JPEG_HEAD(640, 480);
    expect(imageDimensions('image/jpeg', bytes(jpeg.subarray(0, 2), exif, jpeg.subarray(2)))).toEqual({ width: 640, height: 480 });
  });

  it.each([
    ['a PNG cut before IHDR ends', 'image/png', PNG_HEAD(1, 1).subarray(0, 20)],
    ['a PNG of width 0', 'image/png', PNG_HEAD(0, 10)],
    ['a JPEG without a frame header before its scan', 'image/jpeg', bytes([0xff, 0xd8], [0xff, 0xda], [0, 8], Buffer.alloc(8))],
    ['a JPEG whose segments do not chain', 'image/jpeg', bytes([0xff, 0xd8], [0x12, 0x34])],
  ] as const)('undefined for %s', (_name, type, head) => {
    expect(imageDimensions(type, head)).toBeUndefined();
  });
});

describe('tailIsZipArchive: polyglots end with a ZIP directory', () => {
  const eocd = (commentLength: number) => bytes('PK\x05\x06', Buffer.alloc(16), u16le(commentLength));
  it('true for an end-of-central-directory record at the very end, with or without a comment', () => {
    expect(tailIsZipArchive(bytes(JPEG_HEAD(1, 1), eocd(0)))).toBe(true);
    expect(tailIsZipArchive(bytes(JPEG_HEAD(1, 1), eocd(5), 'hello'))).toBe(true);
  });
  it('true for a whole archive followed by other bytes, which unzip and Python still open (a JPEG, a ZIP and 16 zero bytes passed)', () => {
    const entry = bytes('PK\x01\x02', Buffer.alloc(42), 'a.html');
    const record = bytes('PK\x05\x06', [0, 0, 0, 0, 1, 0, 1, 0], [entry.length, 0, 0, 0], Buffer.alloc(4), u16le(0));
    expect(tailIsZipArchive(bytes(JPEG_HEAD(1, 1), entry, record, Buffer.alloc(16)))).toBe(true);
    expect(tailIsZipArchive(bytes(JPEG_HEAD(1, 1), Buffer.alloc(entry.length), record, Buffer.alloc(16)))).toBe(false); // no directory where the record says
  });
  it('false when the signature is not where a ZIP would end', () => {
    expect(tailIsZipArchive(bytes(JPEG_HEAD(1, 1)))).toBe(false);
    expect(tailIsZipArchive(bytes(eocd(0), 'trailing bytes'))).toBe(false);
    expect(tailIsZipArchive(bytes(eocd(50), 'short'))).toBe(false);
  });
});

describe('limits, at their boundaries', () => {
  const limits: MediaLimits = { maxVideoWidth: 640, maxVideoHeight: 480, maxVideoPixels: 640 * 360, maxFrameRate: 60, maxImagePixels: 1000 };

  it('defaults: 4096x4096 sides, 4096x2304 pixels a frame, 240 frames a second, 40 megapixels an image', () => {
    expect(DEFAULT_MEDIA_LIMITS).toEqual({ maxVideoWidth: 4096, maxVideoHeight: 4096, maxVideoPixels: 9437184, maxFrameRate: 240, maxImagePixels: 40000000 });
    expect(frameRateViolation(240, DEFAULT_MEDIA_LIMITS)).toBeUndefined();
    expect(frameRateViolation(1000, DEFAULT_MEDIA_LIMITS)).toBe('the video runs at 1000 frames a second, over the limit of 240');
    expect(videoSizeViolation(4096, 2304, DEFAULT_MEDIA_LIMITS)).toBeUndefined();
    expect(videoSizeViolation(2304, 4096, DEFAULT_MEDIA_LIMITS)).toBeUndefined();
    expect(videoSizeViolation(4097, 16, DEFAULT_MEDIA_LIMITS)).toMatch(/4097x16, larger than the 4096x4096 limit/);
    expect(videoSizeViolation(16384, 16384, DEFAULT_MEDIA_LIMITS)).toMatch(/16384x16384/);
  });

  it('video width and height: equal passes, one more is refused', () => {
    expect(videoSizeViolation(640, 100, limits)).toBeUndefined();
    expect(videoSizeViolation(641, 100, limits)).toBe('the video is 641x100, larger than the 640x480 limit');
    expect(videoSizeViolation(100, 480, limits)).toBeUndefined();
    expect(videoSizeViolation(100, 481, limits)).toBe('the video is 100x481, larger than the 640x480 limit');
  });

  it('video pixels: equal passes, more is refused', () => {
    const square = { ...limits, maxVideoPixels: 400 * 400 };
    expect(videoSizeViolation(400, 400, square)).toBeUndefined();
    expect(videoSizeViolation(401, 399, square)).toBeUndefined();
    expect(videoSizeViolation(401, 400, square)).toBe('the video is 401x400 (160400 pixels a frame), over the limit of 160000 pixels');
    expect(videoSizeViolation(640, 360, limits)).toBeUndefined();
    expect(videoSizeViolation(640, 361, limits)).toMatch(/231040 pixels a frame\), over the limit of 230400 pixels/);
  });

  it('frame rate: equal passes, more is refused', () => {
    expect(frameRateViolation(60, limits)).toBeUndefined();
    expect(frameRateViolation(60000 / 1001, limits)).toBeUndefined();
    expect(frameRateViolation(60.01, limits)).toBe('the video runs at 60.01 frames a second, over the limit of 60');
  });

  it('image pixels: equal passes, one more is refused', () => {
    expect(imageSizeViolation(40, 25, limits)).toBeUndefined();
    expect(imageSizeViolation(1001, 1, limits)).toBe('the image is 1001x1 (1001 pixels), over the limit of 1000 pixels');
    expect(imageSizeViolation(8000, 5000, DEFAULT_MEDIA_LIMITS)).toBeUndefined();
    expect(imageSizeViolation(8000, 5001, DEFAULT_MEDIA_LIMITS)).toMatch(/over the limit of 40000000 pixels/);
  });

  it('the decoders\' backstop leaves room for stride padding', () => {
    expect(decoderPixelCap(9437184)).toBe(18874368);
  });
});

describe('pinned ffprobe and decode-check arguments', () => {
  it.each([
    ['video/mp4', 'mov'],
    ['video/quicktime', 'mov'],
    ['video/webm', 'matroska'],
    ['video/x-msvideo', 'avi'],
    ['image/png', 'png_pipe'],
    ['image/jpeg', 'jpeg_pipe'],
    ['image/webp', 'webp_pipe'],
    ['image/gif', 'gif'],
  ] as const)('%s opens with the %s demuxer only', (type, demuxer) => {
    expect(pinArgs(pinFor(type, 1000))).toEqual(['-protocol_whitelist', 'file,pipe', '-format_whitelist', demuxer, '-f', demuxer, '-max_pixels', '1000']);
  });

  it('ffprobe: pinned, JSON, the file as -i', () => {
    expect(buildProbeArgs('/tmp/in', pinFor('video/webm', 18874368))).toEqual([
      '-v', 'error', '-max_alloc', '268435456',
      '-protocol_whitelist', 'file,pipe', '-format_whitelist', 'matroska', '-f', 'matroska', '-max_pixels', '18874368',
      '-print_format', 'json', '-show_format', '-show_streams', '-i', '/tmp/in',
    ]);
  });

  it('decode check: pinned, the libvpx decoder after the pin when VP9 has alpha', () => {
    expect(buildDecodeCheckArgs('/tmp/in', pinFor('video/webm'), 'libvpx-vp9')).toEqual([
      '-v', 'error', '-nostdin',
      '-protocol_whitelist', 'file,pipe', '-format_whitelist', 'matroska', '-f', 'matroska',
      '-c:v', 'libvpx-vp9', '-i', '/tmp/in',
      '-map', '0:v:0', '-frames:v', '1', '-vf', 'scale=16:16', '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1',
    ]);
  });

  it('reads the frame size a decoder refused from its log', () => {
    const log = '[h264 @ 0x1] [IMGUTILS @ 0x2] Picture size 4608x4608 exceeds specified max pixel count 9437184, see the documentation';
    expect(refusedPictureSize(log)).toEqual({ width: 4608, height: 4608 });
    expect(refusedPictureSize('moov atom not found')).toBeUndefined();
  });

  it('error messages keep no path of this machine, and none of ffmpeg\'s noise', () => {
    expect(tidyToolMessage('ffprobe failed (exit 1): /tmp/backdrop-job-x/input: Invalid data | file:/etc/passwd')).toBe('ffprobe failed (exit 1): <file>: Invalid data | <file>');
    // every engine error, which becomes the job's `error`, the same way
    const decoding = new EngineError('input_invalid', 'decoding failed: ffmpeg failed (exit 1): /srv/data/storage/uploads/vid_01: No such file or directory');
    expect(decoding.message).toBe('decoding failed: ffmpeg failed (exit 1): <file>: No such file or directory');
    expect(new EngineError('input_too_long', 'the video lasts 20 s, over the 10 s limit (1/90000 s ticks)').message).toBe('the video lasts 20 s, over the 10 s limit (1/90000 s ticks)');
    expect(tidyToolMessage('Invalid frame rate 1/0 in "/tmp/a b"')).toBe('Invalid frame rate 1/0 in "<file> b"');
    expect(tidyToolMessage('ffmpeg failed (exit 1):     Last message repeated 1 times | Cannot determine format of input stream 0:0 after EOF | Error marking filters as finished')).toBe(
      'ffmpeg failed (exit 1): Cannot determine format of input stream 0:0 after EOF | Error marking filters as finished',
    );
    expect(tidyToolMessage('ffprobe failed (exit 1): [mov,mp4,m4a,3gp,3g2,mj2 @ 0x3839f340] moov atom not found | /tmp/x: Invalid data found when processing input')).toBe(
      'ffprobe failed (exit 1): moov atom not found | <file>: Invalid data found when processing input',
    );
  });
});
