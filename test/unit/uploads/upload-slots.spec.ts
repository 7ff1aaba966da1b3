import { connect, Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { InMemoryVideoProbe } from '../../../src/modules/uploads/adapters/in-memory/in-memory.video-probe';
import { VideoProbe } from '../../../src/modules/uploads/ports/video-probe';
import { InMemoryApp, startInMemoryApp } from '../../support/in-memory-app';
import { MEDIA_DIR, swap } from '../../support/test-app';

describe('uploads of one key in flight at once (MAX_UPLOADS_IN_FLIGHT_PER_KEY 2)', () => {
  const clip = readFileSync(path.join(MEDIA_DIR, 'portrait-pan.mp4'));
  let t: InMemoryApp;
  beforeAll(async () => {
    t = await startInMemoryApp({ MAX_UPLOADS_IN_FLIGHT_PER_KEY: '2' }, { adapters: [swap(VideoProbe, new InMemoryVideoProbe().knowVideo(clip, { durationSeconds: 8, width: 640, height: 360 }))] });
  });
  afterAll(() => t.close());

  /** an upload whose body stops after its first part's headers: it stays in flight until the socket closes */
  async function stalledUpload(key: string): Promise<Socket> {
    const socket = connect(Number(new URL(t.baseUrl).port), '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`POST /v1/uploads HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: ${key}\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: 10000000\r\n\r\n--x\r\nContent-Disposition: form-data; name="file"; filename="a.mp4"\r\n\r\n`);
    return socket;
  }
  const upload = (key: string) => t.http.post('/v1/uploads').set('X-Api-Key', key).attach('file', clip, 'clip.mp4');
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('a third upload of the key is answered 429 with Retry-After while two stream; another key uploads; a slot comes back when an upload ends', async () => {
    const [key, other] = [await t.createKey(), await t.createKey()];
    const stalled = [await stalledUpload(key), await stalledUpload(key)];
    await sleep(300); // both reached the server
    const refused = await upload(key);
    expect([refused.status, refused.body.error?.code, refused.headers['retry-after']]).toEqual([429, 'rate_limited', '5']);
    expect((await upload(other)).status).toBe(200);

    stalled[0].destroy();
    await sleep(300);
    expect((await upload(key)).status).toBe(200);
    stalled[1].destroy();
  });
});
