import { AddressPolicy } from '../../../src/infrastructure/net/address-policy';
import { OutboundRequestRefused, parseOutboundUrl } from '../../../src/infrastructure/net/outbound-http.client';

const refusal = (raw: string): unknown => {
  try {
    parseOutboundUrl(raw);
  } catch (error) {
    return error;
  }
  return undefined;
};

/** The host as the client connects to it: brackets of IPv6 literals removed. */
const hostOf = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '');

describe('parseOutboundUrl', () => {
  it.each(['http://example.com/video.mp4', 'https://example.com:8443/a/b?c=d#e', 'HTTPS://EXAMPLE.COM/x', 'http://8.8.8.8/v.mp4'])('accepts %s', (raw) => {
    const url = parseOutboundUrl(raw);
    expect(url).toBeInstanceOf(URL);
    expect(['http:', 'https:']).toContain(url.protocol);
  });

  it.each([
    ['file://', 'file:///etc/passwd'],
    ['gopher://', 'gopher://127.0.0.1:6379/_INFO'],
    ['ftp://', 'ftp://example.com/video.mp4'],
    ['data:', 'data:video/mp4;base64,AAAA'],
    ['javascript:', 'javascript:alert(1)'],
    ['ws://', 'ws://example.com/'],
  ])('refuses the %s scheme', (_scheme, raw) => {
    const error = refusal(raw);
    expect(error).toBeInstanceOf(OutboundRequestRefused);
    expect((error as Error).message).toMatch(/http/);
  });

  it.each(['http://user:pass@example.com/', 'https://user@example.com/', 'https://:secret@example.com/'])('refuses credentials in %s', (raw) => {
    const error = refusal(raw);
    expect(error).toBeInstanceOf(OutboundRequestRefused);
    expect((error as Error).message).toMatch(/credentials/);
  });

  it.each(['', 'not a url', 'example.com/video.mp4', '//example.com/x', 'http://', 'http://[::1', 'http://exa mple.com/'])('refuses garbage %j', (raw) => {
    expect(refusal(raw)).toBeInstanceOf(OutboundRequestRefused);
  });

  describe('IPv4 spellings normalise so the policy sees the real address', () => {
    const policy = new AddressPolicy();

    it.each([
      ['decimal', 'http://2130706433/'],
      ['octal', 'http://0177.0.0.1/'],
      ['hex octet', 'http://0x7f.0.0.1/'],
      ['hex whole', 'http://0x7f000001/'],
      ['short form', 'http://127.1/'],
    ])('%s %s is 127.0.0.1 and refused', (_name, raw) => {
      const url = parseOutboundUrl(raw);
      expect(url.hostname).toBe('127.0.0.1');
      expect(policy.isAddressAllowed(hostOf(url))).toBe(false);
    });

    it.each(['http://[::ffff:127.0.0.1]/', 'http://[0:0:0:0:0:ffff:7f00:1]/', 'http://[::1]/'])('IPv6 literal %s is refused', (raw) => {
      expect(policy.isAddressAllowed(hostOf(parseOutboundUrl(raw)))).toBe(false);
    });

    it('a decimal spelling of a public address stays allowed', () => {
      const url = parseOutboundUrl('http://134744072/'); // 8.8.8.8
      expect(url.hostname).toBe('8.8.8.8');
      expect(policy.isAddressAllowed(hostOf(url))).toBe(true);
    });
  });
});
