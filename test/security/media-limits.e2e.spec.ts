/**
 * The size limits at their boundaries through the API: uploads answer at once (400 naming `file`
 * when over), a fetched background image fails its job with input_invalid. Real ffprobe, real files.
 */
import { clip, h264, pngImage } from '../support/hostile-media';
import { eventually, startTestApp, TestApp } from '../support/test-app';
import { LoopbackServer, startLoopbackServer } from './support/loopback-server';

const NO_RATE_LIMITS = { RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_STARTS_PER_MINUTE: '100000' };

describe('media size limits through the API (small configured limits)', () => {
  let t: TestApp;
  let key: string;
  let images: LoopbackServer;
  const served = new Map<string, Buffer>();

  beforeAll(async () => {
    images = await startLoopbackServer((req, res) => {
      const body = served.get(req.url ?? '');
      if (!body) return void res.writeHead(404).end();
      res.end(body);
    });
    t = await startTestApp({ ...NO_RATE_LIMITS, OUTBOUND_ALLOW_LIST: 'localhost', MAX_VIDEO_WIDTH: '160', MAX_VIDEO_HEIGHT: '96', MAX_VIDEO_PIXELS: '12800', MAX_VIDEO_FPS: '50', MAX_IMAGE_PIXELS: '4096' });
    key = await t.createKey(100_000);
  });
  afterAll(async () => {
    await t.close();
    await images.close();
  });

  const upload = async (size: string, rate?: number) => t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', await clip(size, 0.3, h264, 'mp4', rate), `${size}.mp4`);

  it.each([
    ['at MAX_VIDEO_WIDTH', '160x80'],
    ['at MAX_VIDEO_HEIGHT', '128x96'],
    ['at MAX_VIDEO_PIXELS (160x80 = 12800)', '160x80'],
  ])('an upload %s is accepted', async (_name, size) => {
    expect((await upload(size)).status).toBe(200);
  });

  it.each([
    ['over MAX_VIDEO_WIDTH', '162x80', 'the video is 162x80, larger than the 160x96 limit'],
    ['over MAX_VIDEO_HEIGHT', '128x98', 'the video is 128x98, larger than the 160x96 limit'],
    ['over MAX_VIDEO_PIXELS', '160x82', 'the video is 160x82 (13120 pixels a frame), over the limit of 12800 pixels'],
  ])('an upload %s is refused: 400 invalid_request naming file', async (_name, size, message) => {
    const res = await upload(size);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: { code: 'invalid_request', details: [{ field: 'file', message }] } });
  });

  it('an upload at MAX_VIDEO_FPS (50) is accepted, one at 51 frames a second refused: 400 invalid_request naming file', async () => {
    expect((await upload('64x48', 50)).status).toBe(200);
    const res = await upload('64x48', 51);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: { code: 'invalid_request', details: [{ field: 'file', message: 'the video runs at 51 frames a second, over the limit of 50' }] } });
  });

  it.each([
    ['64x64, at MAX_IMAGE_PIXELS', 'completed', 64, 64, null],
    ['65x64, one column over', 'failed', 65, 64, 'input_invalid'],
  ])('a background image %s: the job ends %s', async (_name, status, width, height, errorCode) => {
    const video = await upload('160x80');
    served.set(`/${width}.png`, await pngImage(width, height));
    const created = await t.http
      .post('/v1/jobs')
      .set('X-Api-Key', key)
      .send({ video_url: video.body.video_url, background: { type: 'image', image_url: `http://localhost:${images.port}/${width}.png` } });
    expect(created.status).toBe(200);
    const job = await eventually(async () => {
      const body = (await t.http.get(`/v1/jobs/${created.body.id}`).set('X-Api-Key', key)).body;
      return ['completed', 'failed'].includes(body.status) ? body : undefined;
    });
    expect(job).toMatchObject({ status, error_code: errorCode });
    if (status === 'failed') expect(job.error).toBe(`The background image was refused: the background image is too large: the image is 65x64 (4160 pixels), over the limit of 4096 pixels`);
  });
});

describe('media size limits through the API (defaults)', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp(NO_RATE_LIMITS);
    key = await t.createKey();
  });
  afterAll(() => t.close());

  it('an upload 4096 wide is accepted, 4098 wide is refused', async () => {
    const at = await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', await clip('4096x16', 0.2, h264, 'mp4'), 'wide.mp4');
    expect(at.status).toBe(200);
    const over = await t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', await clip('4098x16', 0.2, h264, 'mp4'), 'wider.mp4');
    expect(over.status).toBe(400);
    expect(over.body.error.details).toEqual([{ field: 'file', message: 'the video is 4098x16, larger than the 4096x4096 limit' }]);
  });
});
