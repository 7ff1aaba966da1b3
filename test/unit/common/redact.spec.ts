import { redactSecrets, withoutUrlSecrets } from '../../../src/common/logging/redact';

describe('redactSecrets (every log line)', () => {
  it('drops URL signatures, passwords in URLs, webhook secrets and the given secrets', () => {
    const line = 'GET https://b.s3.example.com/o?X-Amz-Signature=abc&x=1 via postgres://backdrop:SuperSecretDbPw123@db:5432/x, secret whsec_c2VjcmV0LXNlY3JldA== token T0ken-of-the-admin';
    expect(redactSecrets(line, ['T0ken-of-the-admin'])).toBe('GET https://b.s3.example.com/o?X-Amz-Signature=[redacted]&x=1 via postgres://[redacted]@db:5432/x, secret whsec_[redacted] token [redacted]');
  });

  it('drops the signature of a signed URL written percent-encoded inside another (a worker trace)', () => {
    expect(redactSecrets('url=https%3A%2F%2Fbucket%2Fo%3FX-Amz-Security-Token%3DFQoG%26X-Amz-Signature%3Dabc123%26x%3D1')).toBe('url=https%3A%2F%2Fbucket%2Fo%3FX-Amz-Security-Token%3D[redacted]%26X-Amz-Signature%3D[redacted]%26x%3D1');
  });

  it('takes time in proportion to the text on a long run of scheme characters (it was quadratic: 9 s over 100 kB)', () => {
    const started = process.hrtime.bigint();
    expect(redactSecrets('x-'.repeat(50_000))).toHaveLength(100_000);
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(500);
  });

  it('shows an API key by its fingerprint only', () => {
    expect(redactSecrets('key bd_live_jBLUMpgQwHYCEybo1KXnhRRwa44ce4bY')).toMatch(/^key bd_live_<key [0-9a-f]+>$/);
  });
});

describe('withoutUrlSecrets (text from outside, shown to a client)', () => {
  it("keeps each http(s) URL's place and path, never its user, password or query string", () => {
    expect(withoutUrlSecrets('fetch http://u:p@h:3917/files/a?expires=1&token=T failed; see https://docs.example.com/x#y')).toBe('fetch http://h:3917/files/a?[redacted] failed; see https://docs.example.com/x#y');
  });

  it('leaves text without URLs as it is', () => {
    expect(withoutUrlSecrets('the video is longer than 600 s')).toBe('the video is longer than 600 s');
  });
});
