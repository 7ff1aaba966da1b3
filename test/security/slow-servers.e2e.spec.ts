import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { eventually, MEDIA_DIR, startTestApp, TestApp } from '../support/test-app';
import { LoopbackServer, startLoopbackServer } from './support/loopback-server';

/** the whole fetch of an input within this (INPUT_FETCH_TIMEOUT_SECONDS) */
const FETCH_SECONDS = 4;

/**
 * Servers that send a byte now and then, never silent long enough for an idle timeout: a job's
 * input fetch ends at INPUT_FETCH_TIMEOUT_SECONDS, and a canceled job stops its fetch at once,
 * rather than holding a worker's slot for as long as the server likes.
 */
describe('inputs served a byte at a time', () => {
  let t: TestApp;
  let key: string;
  let trickler: LoopbackServer;
  /** when each answer of the trickler was closed, by path */
  const closedAt = new Map<string, number>();

  beforeAll(async () => {
    trickler = await startLoopbackServer((req, res) => {
      res.writeHead(200, { 'content-type': 'video/mp4' });
      const timer = setInterval(() => res.write(Buffer.alloc(1)), 100);
      res.on('close', () => {
        clearInterval(timer);
        closedAt.set(req.url ?? '', Date.now());
      });
    });
    t = await startTestApp({ OUTBOUND_ALLOW_LIST: 'localhost', INPUT_FETCH_TIMEOUT_SECONDS: String(FETCH_SECONDS) });
    key = await t.createKey(100000);
  });
  afterAll(async () => {
    await t.close();
    await trickler.close();
  });

  const job = async (id: string) => (await t.http.get(`/v1/jobs/${id}`).set('X-Api-Key', key)).body;
  const create = async (path: string) => {
    const res = await t.http.post('/v1/jobs').set('X-Api-Key', key).send({ video_url: `http://localhost:${trickler.port}${path}` });
    expect(res.status).toBe(200);
    await eventually(async () => (trickler.hits.includes(`GET ${path}`) ? true : undefined));
    return { id: res.body.id as string, fetchStarted: Date.now() };
  };

  it('a video_url that trickles fails the job input_unreachable once INPUT_FETCH_TIMEOUT_SECONDS has passed', async () => {
    const { id, fetchStarted } = await create('/trickle.mp4');
    const failed = await eventually(async () => {
      const current = await job(id);
      return current.status === 'failed' ? current : undefined;
    }, 3 * FETCH_SECONDS * 1000);
    expect(failed).toMatchObject({ error_code: 'input_unreachable' });
    expect(failed.error).toMatch(new RegExp(`took longer than ${FETCH_SECONDS} s`));
    expect(closedAt.get('/trickle.mp4')! - fetchStarted).toBeGreaterThanOrEqual(FETCH_SECONDS * 1000 - 500);
  }, 30_000);

  it('canceling a job whose video is being fetched closes the fetch, well before its deadline', async () => {
    const { id, fetchStarted } = await create('/canceled.mp4');
    const canceled = await t.http.post(`/v1/jobs/${id}/cancel`).set('X-Api-Key', key);
    expect(canceled.status).toBe(200);
    await eventually(async () => (closedAt.has('/canceled.mp4') ? true : undefined), 3 * FETCH_SECONDS * 1000);
    // the job's watch reads its status once a second
    expect(closedAt.get('/canceled.mp4')! - fetchStarted).toBeLessThan(FETCH_SECONDS * 1000 - 1000);
    expect(await job(id)).toMatchObject({ status: 'failed', error_code: 'canceled' });
  }, 30_000);
});

/**
 * Servers whose answer is not what the job asks for, and never ends: the fetch is refused from its
 * first bytes, as the input gate would refuse the file, instead of reading on to the upload limit
 * (500 MB) or the fetch's deadline and only then finding it is not a video.
 */
describe('inputs whose first bytes are not a video (or an image), and that go on', () => {
  let t: TestApp;
  let key: string;
  let endless: LoopbackServer;
  /** bytes each answer had handed to its socket when it was closed, by path */
  const sentWhenClosed = new Map<string, number>();
  const CLIP = path.join(MEDIA_DIR, 'portrait-pan.mp4');

  beforeAll(async () => {
    endless = await startLoopbackServer((req, res) => {
      if (req.url === '/clip.mp4') return res.end(readFileSync(CLIP));
      res.writeHead(200, { 'content-type': req.url?.endsWith('.png') ? 'image/png' : 'video/mp4' });
      const page = Buffer.from(`<!doctype html><html><body>${'<p>not a video</p>'.repeat(4000)}`);
      let sent = 0;
      const pour = (): void => {
        while (!res.destroyed && res.write(page)) sent += page.length;
      };
      res.on('drain', pour);
      res.on('close', () => sentWhenClosed.set(req.url ?? '', sent));
      pour();
    });
    t = await startTestApp({ OUTBOUND_ALLOW_LIST: 'localhost', INPUT_FETCH_TIMEOUT_SECONDS: '600' });
    key = await t.createKey(100000);
  });
  afterAll(async () => {
    await t.close();
    await endless.close();
  });

  const served = (pathname: string) => `http://localhost:${endless.port}${pathname}`;
  const finished = (id: string) =>
    eventually(async () => {
      const job = (await t.http.get(`/v1/jobs/${id}`).set('X-Api-Key', key)).body;
      return job.status === 'completed' || job.status === 'failed' ? job : undefined;
    }, 30_000);

  it.each([
    ['video_url', () => ({ video_url: served('/page.mp4') }), '/page.mp4', 'The video was refused: the file is an HTML page, not an mp4, mov, webm or avi video'],
    ['background image_url', () => ({ video_url: served('/clip.mp4'), background: { type: 'image', image_url: served('/page.png') } }), '/page.png', 'The background image was refused: the background image is an HTML page, not a PNG, JPEG, WebP or GIF image'],
  ])('a %s serving an endless web page fails the job input_invalid from its first bytes, and the fetch is closed', async (_what, body, pathname, error) => {
    const res = await t.http.post('/v1/jobs').set('X-Api-Key', key).send(body());
    expect(res.status).toBe(200);
    expect(await finished(res.body.id)).toMatchObject({ status: 'failed', error_code: 'input_invalid', error });
    const sent = await eventually(async () => sentWhenClosed.get(pathname));
    // what the loopback's socket buffers took in, far below the 500 MB the fetch would have read
    expect(sent).toBeLessThan(64 * 1024 * 1024);
  }, 60_000);
});
