import { detectVideoType, isSupportedVideo, sniffVideoType } from '../../../src/engine/media/sniff';
import { MEDIA } from '../support/media';

const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part))));

describe('sniffVideoType', () => {
  it.each([
    ['mp4 (isom brand)', bytes([0, 0, 0, 0x20], 'ftypisom', [0, 0, 2, 0]), 'video/mp4'],
    ['QuickTime (qt brand)', bytes([0, 0, 0, 0x14], 'ftypqt  ', [0, 0, 0, 0]), 'video/quicktime'],
    ['old QuickTime (moov first)', bytes([0, 0, 0, 0x08], 'moov'), 'video/quicktime'],
    ['WebM', bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x84], 'webm'), 'video/webm'],
    ['AVI', bytes('RIFF', [0, 0, 0, 0], 'AVI LIST'), 'video/x-msvideo'],
  ])('recognises %s', (_name, head, type) => {
    expect(sniffVideoType(head)).toBe(type);
  });

  it.each([
    ['plain Matroska', bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x82, 0x88], 'matroska')],
    ['WAV', bytes('RIFF', [0, 0, 0, 0], 'WAVEfmt ')],
    ['PNG', bytes([0x89], 'PNG', [13, 10, 26, 10])],
    ['text', bytes('hello world, not a video')],
    ['nothing', bytes()],
  ])('refuses %s', (_name, head) => {
    expect(sniffVideoType(head)).toBeUndefined();
  });

  it('reads a real file', async () => {
    expect(await detectVideoType(MEDIA.portraitPan)).toBe('video/mp4');
    expect(await isSupportedVideo(MEDIA.astronaut)).toBe(false);
  });
});
