import { API_KEY_PREFIX, constantTimeEqualHex, fingerprintOf, hashApiKey, issueApiKey, looksLikeApiKey } from '../../../src/modules/auth/domain/api-key';

const BASE62_32 = 'abcdefghijklmnopqrstuvwxyzABCDEF'; // 32 characters
const VALID = `bd_live_${BASE62_32}`;

describe('issueApiKey', () => {
  const issued = Array.from({ length: 200 }, () => issueApiKey());

  it('plaintext is bd_live_ followed by 32 base62 characters', () => {
    expect(API_KEY_PREFIX).toBe('bd_live_');
    for (const key of issued) expect(key.plaintext).toMatch(/^bd_live_[0-9A-Za-z]{32}$/);
  });

  it('every issued key passes looksLikeApiKey', () => {
    for (const key of issued) expect(looksLikeApiKey(key.plaintext)).toBe(true);
  });

  it('keys are unique', () => {
    expect(new Set(issued.map((k) => k.plaintext)).size).toBe(issued.length);
  });

  it('keyHash is the sha256 hex of the plaintext', () => {
    for (const key of issued) {
      expect(key.keyHash).toMatch(/^[0-9a-f]{64}$/);
      expect(key.keyHash).toBe(hashApiKey(key.plaintext));
    }
  });

  it('fingerprint is the first 12 hex characters of the hash', () => {
    for (const key of issued) {
      expect(key.fingerprint).toHaveLength(12);
      expect(key.keyHash.startsWith(key.fingerprint)).toBe(true);
    }
  });

  it('draws from the whole base62 alphabet', () => {
    const seen = new Set(issued.flatMap((k) => [...k.plaintext.slice(8)]));
    expect(seen.size).toBe(62);
  });
});

describe('hashApiKey / fingerprintOf', () => {
  it('matches known SHA-256 vectors', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hashApiKey('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('is sensitive to every character', () => {
    expect(hashApiKey(VALID)).not.toBe(hashApiKey(`${VALID.slice(0, -1)}G`));
  });

  it('fingerprintOf takes the first 12 characters', () => {
    expect(fingerprintOf('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')).toBe('ba7816bf8f01');
  });
});

describe('looksLikeApiKey', () => {
  it('accepts bd_live_ + 32 base62', () => {
    expect(looksLikeApiKey(VALID)).toBe(true);
    expect(looksLikeApiKey(`bd_live_${'0'.repeat(32)}`)).toBe(true);
    expect(looksLikeApiKey(`bd_live_${'Z'.repeat(32)}`)).toBe(true);
  });

  it.each([
    ['31 characters', `bd_live_${BASE62_32.slice(1)}`],
    ['33 characters', `bd_live_${BASE62_32}x`],
    ['test prefix', `bd_test_${BASE62_32}`],
    ['upper-case prefix', `BD_LIVE_${BASE62_32}`],
    ['no prefix', BASE62_32],
    ['prefix only', 'bd_live_'],
    ['empty', ''],
    ['a dash', `bd_live_${BASE62_32.slice(1)}-`],
    ['an underscore', `bd_live_${BASE62_32.slice(1)}_`],
    ['a non-ASCII letter', `bd_live_${BASE62_32.slice(1)}é`],
    ['leading space', ` ${VALID}`],
    ['trailing space', `${VALID} `],
    ['trailing newline', `${VALID}\n`],
  ])('refuses %s', (_name, candidate) => {
    expect(looksLikeApiKey(candidate)).toBe(false);
  });
});

describe('constantTimeEqualHex', () => {
  const a = hashApiKey('one');
  const b = hashApiKey('two');

  it('equal hashes are equal', () => {
    expect(constantTimeEqualHex(a, a)).toBe(true);
    expect(constantTimeEqualHex(a, `${a}`.toUpperCase())).toBe(true);
  });

  it('different hashes are not equal', () => {
    expect(constantTimeEqualHex(a, b)).toBe(false);
  });

  it('differing only in the last character is not equal', () => {
    const flipped = a.slice(0, -1) + (a.endsWith('0') ? '1' : '0');
    expect(constantTimeEqualHex(a, flipped)).toBe(false);
  });

  it('different lengths are not equal', () => {
    expect(constantTimeEqualHex(a, a.slice(0, 62))).toBe(false);
    expect(constantTimeEqualHex(a, '')).toBe(false);
    expect(constantTimeEqualHex('', a)).toBe(false);
  });

  it.each([
    ['non-hex strings', 'zz', 'yy'],
    ['non-hex vs empty', 'zz', ''],
    ['odd lengths differing in the last digit', 'abc', 'abd'],
    ['a hash vs the hash with a non-hex tail', a, `${a}zz`],
    ['a hash vs the hash with an extra digit', a, `${a}0`],
  ])('%s are not equal', (_name, left, right) => {
    expect(constantTimeEqualHex(left, right)).toBe(false);
  });
});
