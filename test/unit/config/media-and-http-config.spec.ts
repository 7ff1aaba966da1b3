import { ConfigError, loadConfig } from '../../../src/config/app-config';

function variableRefused(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.variable;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('media size limits', () => {
  it('defaults: 4096x4096 sides, 4096x2304 pixels a frame, 240 frames a second, 40 megapixels an image', () => {
    expect(loadConfig({}).mediaLimits).toEqual({ maxVideoWidth: 4096, maxVideoHeight: 4096, maxVideoPixels: 9437184, maxFrameRate: 240, maxImagePixels: 40000000 });
  });

  it('reads each variable', () => {
    const config = loadConfig({ MAX_VIDEO_WIDTH: '1920', MAX_VIDEO_HEIGHT: '1080', MAX_VIDEO_PIXELS: '2073600', MAX_VIDEO_FPS: '60', MAX_IMAGE_PIXELS: '1000000' });
    expect(config.mediaLimits).toEqual({ maxVideoWidth: 1920, maxVideoHeight: 1080, maxVideoPixels: 2073600, maxFrameRate: 60, maxImagePixels: 1000000 });
  });

  it.each([
    ['MAX_VIDEO_WIDTH', '16', '15'],
    ['MAX_VIDEO_WIDTH', '16384', '16385'],
    ['MAX_VIDEO_HEIGHT', '16', '15'],
    ['MAX_VIDEO_HEIGHT', '16384', '16385'],
    ['MAX_VIDEO_PIXELS', '256', '255'],
    ['MAX_IMAGE_PIXELS', '256', '255'],
    ['MAX_VIDEO_FPS', '1', '0.5'],
  ])('%s: %s is accepted, %s refused', (name, accepted, refused) => {
    expect(() => loadConfig({ [name]: accepted })).not.toThrow();
    expect(variableRefused({ [name]: refused })).toBe(name);
  });

  it.each(['abc', '1.5', '-4'])('MAX_VIDEO_PIXELS=%s is refused', (value) => {
    expect(variableRefused({ MAX_VIDEO_PIXELS: value })).toBe('MAX_VIDEO_PIXELS');
  });
});

describe('HTTP server timeouts', () => {
  it('defaults: keep-alive 65 s (above proxies\' 60 s), headers 66 s, whole request 30 min, 10 s for requests in flight at shutdown', () => {
    expect(loadConfig({}).http).toEqual({ keepAliveTimeoutMs: 65000, headersTimeoutMs: 66000, requestTimeoutMs: 1800000, shutdownGraceMs: 10000 });
  });

  it('the shutdown grace may be 0 (connections cut at once); below is refused', () => {
    expect(loadConfig({ HTTP_SHUTDOWN_GRACE_MS: '0' }).http.shutdownGraceMs).toBe(0);
    expect(variableRefused({ HTTP_SHUTDOWN_GRACE_MS: '-1' })).toBe('HTTP_SHUTDOWN_GRACE_MS');
  });

  it('the headers timeout must be above the keep-alive timeout: one more passes, equal is refused', () => {
    expect(loadConfig({ HTTP_KEEP_ALIVE_TIMEOUT_MS: '5000', HTTP_HEADERS_TIMEOUT_MS: '5001' }).http.headersTimeoutMs).toBe(5001);
    expect(variableRefused({ HTTP_KEEP_ALIVE_TIMEOUT_MS: '5000', HTTP_HEADERS_TIMEOUT_MS: '5000' })).toBe('HTTP_HEADERS_TIMEOUT_MS');
  });

  it('the request timeout must be at least the headers timeout: equal passes, one less is refused', () => {
    expect(loadConfig({ HTTP_REQUEST_TIMEOUT_MS: '66000' }).http.requestTimeoutMs).toBe(66000);
    expect(variableRefused({ HTTP_REQUEST_TIMEOUT_MS: '65999' })).toBe('HTTP_REQUEST_TIMEOUT_MS');
  });

  it.each(['HTTP_KEEP_ALIVE_TIMEOUT_MS', 'HTTP_HEADERS_TIMEOUT_MS', 'HTTP_REQUEST_TIMEOUT_MS'])('%s below 1000 is refused', (name) => {
    expect(variableRefused({ [name]: '999' })).toBe(name);
  });
});
