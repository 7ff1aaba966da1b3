import { UrlSigner } from '../../../src/modules/storage/application/url-signer';

const SECRET = 's'.repeat(48);
const KEY = 'outputs/job_abc/output.webm';
const NOW = 1_900_000_000;
const EXPIRES = NOW + 3600;
const NAME = 'job_abc.webm';

const signer = new UrlSigner(SECRET);
const sig = signer.sign(KEY, EXPIRES, NAME);

/** Changes one hex digit of a signature. */
const flipHex = (hex: string, index: number): string => hex.slice(0, index) + (hex[index] === '0' ? '1' : '0') + hex.slice(index + 1);

describe('UrlSigner', () => {
  it('signs with 64 lower-case hex characters, deterministically', () => {
    expect(sig).toMatch(/^[0-9a-f]{64}$/);
    expect(signer.sign(KEY, EXPIRES, NAME)).toBe(sig);
  });

  it('accepts its own signature before expiry', () => {
    expect(signer.verify(KEY, String(EXPIRES), sig, NAME, NOW)).toBe('valid');
  });

  it('accepts a signature without a download name', () => {
    expect(signer.verify(KEY, String(EXPIRES), signer.sign(KEY, EXPIRES), undefined, NOW)).toBe('valid');
  });

  it('is valid up to and including the expiry second', () => {
    expect(signer.verify(KEY, String(EXPIRES), sig, NAME, EXPIRES)).toBe('valid');
  });

  it('is expired one second after the expiry', () => {
    expect(signer.verify(KEY, String(EXPIRES), sig, NAME, EXPIRES + 1)).toBe('expired');
  });

  it('uses the current clock by default', () => {
    const past = Math.floor(Date.now() / 1000) - 10;
    const future = Math.floor(Date.now() / 1000) + 600;
    expect(signer.verify(KEY, String(past), signer.sign(KEY, past, NAME), NAME)).toBe('expired');
    expect(signer.verify(KEY, String(future), signer.sign(KEY, future, NAME), NAME)).toBe('valid');
  });

  describe('tampering is invalid', () => {
    it.each([
      ['another key', () => signer.verify('outputs/job_other/output.webm', String(EXPIRES), sig, NAME, NOW)],
      ['a key with a suffix', () => signer.verify(`${KEY}x`, String(EXPIRES), sig, NAME, NOW)],
      ['a later expiry', () => signer.verify(KEY, String(EXPIRES + 1), sig, NAME, NOW)],
      ['an earlier expiry', () => signer.verify(KEY, String(EXPIRES - 1), sig, NAME, NOW)],
      ['another download name', () => signer.verify(KEY, String(EXPIRES), sig, 'evil.html', NOW)],
      ['a dropped download name', () => signer.verify(KEY, String(EXPIRES), sig, '', NOW)],
      ['first signature digit', () => signer.verify(KEY, String(EXPIRES), flipHex(sig, 0), NAME, NOW)],
      ['last signature digit', () => signer.verify(KEY, String(EXPIRES), flipHex(sig, 63), NAME, NOW)],
      ['another secret', () => new UrlSigner('t'.repeat(48)).verify(KEY, String(EXPIRES), sig, NAME, NOW)],
    ])('%s', (_name, check) => {
      expect(check()).toBe('invalid');
    });

    it('a moved boundary between key and name', () => {
      // the same characters split differently between key and name sign differently
      const s = signer.sign('a', EXPIRES, 'bc');
      expect(signer.verify('ab', String(EXPIRES), s, 'c', NOW)).toBe('invalid');
    });

    it('is invalid, not expired, when both tampered and past expiry', () => {
      expect(signer.verify('other', String(EXPIRES), sig, NAME, EXPIRES + 100)).toBe('invalid');
    });
  });

  describe('malformed input is invalid', () => {
    it.each([
      ['missing expires', undefined, sig],
      ['empty expires', '', sig],
      ['missing signature', String(EXPIRES), undefined],
      ['empty signature', String(EXPIRES), ''],
      ['negative expires', `-${EXPIRES}`, sig],
      ['fractional expires', `${EXPIRES}.5`, sig],
      ['expires with letters', `${EXPIRES}abc`, sig],
      ['expires in exponent form', '1.9e9', sig],
      ['13-digit expires', '1'.repeat(13), sig],
      ['expires with a space', ` ${EXPIRES}`, sig],
      ['63-char signature', String(EXPIRES), sig.slice(1)],
      ['65-char signature', String(EXPIRES), `${sig}0`],
      ['upper-case signature', String(EXPIRES), sig.toUpperCase()],
      ['non-hex signature', String(EXPIRES), 'z'.repeat(64)],
      ['base64 signature', String(EXPIRES), Buffer.from(sig, 'hex').toString('base64')],
    ])('%s', (_name, expires, signature) => {
      expect(signer.verify(KEY, expires, signature, NAME, NOW)).toBe('invalid');
    });
  });
});

describe('UrlSigner across a rotation of URL_SIGNING_SECRET', () => {
  const rotated = new UrlSigner('t'.repeat(48), [{ secret: SECRET }]);

  it('accepts download and upload URLs signed with a previous secret until they expire (every link handed out before was refused, a remote worker’s output upload too)', () => {
    expect(rotated.verify(KEY, String(EXPIRES), sig, NAME, NOW)).toBe('valid');
    expect(rotated.verify(KEY, String(EXPIRES), sig, NAME, EXPIRES + 1)).toBe('expired');
    expect(rotated.verifyUpload(KEY, String(EXPIRES), signer.signUpload(KEY, EXPIRES), NOW)).toBe('valid');
    expect(new UrlSigner('t'.repeat(48)).verify(KEY, String(EXPIRES), sig, NAME, NOW)).toBe('invalid');
  });

  it('a previous secret with a limit accepts only URLs expiring by it (the generated secret, once replaced: whoever read it could sign for any expiry)', () => {
    const limited = new UrlSigner('t'.repeat(48), [{ secret: SECRET, expiringBy: EXPIRES }]);
    expect(limited.verify(KEY, String(EXPIRES), sig, NAME, NOW)).toBe('valid');
    expect(limited.verify(KEY, String(EXPIRES + 1), signer.sign(KEY, EXPIRES + 1, NAME), NAME, NOW)).toBe('invalid');
    expect(limited.verifyUpload(KEY, String(EXPIRES + 1), signer.signUpload(KEY, EXPIRES + 1), NOW)).toBe('invalid');
  });

  it('signs with the current secret only', () => {
    expect(rotated.sign(KEY, EXPIRES, NAME)).toBe(new UrlSigner('t'.repeat(48)).sign(KEY, EXPIRES, NAME));
    expect(rotated.sign(KEY, EXPIRES, NAME)).not.toBe(sig);
    expect(signer.verify(KEY, String(EXPIRES), rotated.sign(KEY, EXPIRES, NAME), NAME, NOW)).toBe('invalid');
  });
});
