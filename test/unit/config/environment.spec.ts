import { loadAdminCliConfig, mediaBinariesFromEnvironment } from '../../../src/config/environment';

describe('the process environment, read in src/config only', () => {
  it('FFMPEG_PATH / FFPROBE_PATH override the bundled builds; unset or empty leaves them', () => {
    expect(mediaBinariesFromEnvironment({ FFMPEG_PATH: '/opt/ffmpeg', FFPROBE_PATH: '/opt/ffprobe' })).toEqual({ ffmpeg: '/opt/ffmpeg', ffprobe: '/opt/ffprobe' });
    expect(mediaBinariesFromEnvironment({ FFMPEG_PATH: '' })).toEqual({ ffmpeg: undefined, ffprobe: undefined });
  });

  it('the admin CLI loads the service configuration without an admin token of its own', () => {
    expect(() => loadAdminCliConfig({ PUBLIC_BASE_URL: 'http://backdrop.test' })).not.toThrow();
  });
});
