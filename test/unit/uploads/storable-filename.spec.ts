import { storableFilename } from '../../../src/modules/uploads/domain/upload';

describe('an upload filename as it is kept', () => {
  it('is the name sent, in any script', () => {
    expect(storableFilename('naïve vidéo ü 🎬.mp4')).toBe('naïve vidéo ü 🎬.mp4');
  });

  it('leaves out controls: NUL (Postgres refused it: a 500), newlines, DEL, C1', () => {
    expect(storableFilename('a\u0000b\nc\r\u007fd\u0085.mp4')).toBe('abcd.mp4');
  });

  it('makes a lone surrogate U+FFFD and keeps pairs', () => {
    expect(storableFilename('a\ud800b\udc00c\ud83c\udfac.mp4')).toBe('a\ufffdb\ufffdc\ud83c\udfac.mp4');
  });

  it('keeps 255 characters, cut between characters: a pair is never split', () => {
    const kept = storableFilename(`a${'🎬'.repeat(300)}`);
    expect(Array.from(kept)).toHaveLength(255);
    expect(kept.endsWith('🎬')).toBe(true);
    expect(storableFilename('x'.repeat(255))).toHaveLength(255);
    expect(storableFilename('x'.repeat(256))).toHaveLength(255);
  });

  it("is 'video' where nothing is left", () => {
    expect(storableFilename('\u0000\u0001')).toBe('video');
  });
});
