import { connect, Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { InMemoryVideoProbe } from '../../../src/modules/uploads/adapters/in-memory/in-memory.video-probe';
import { VideoProbe } from '../../../src/modules/uploads/ports/video-probe';
import { InMemoryApp, startInMemoryApp } from '../../support/in-memory-app';
import { MEDIA_DIR, swap } from '../../support/test-app';

/** A client that sends `Expect: 100-continue` and waits for 100 before its body, as curl does for large bodies. */
describe('Expect: 100-continue', () => {
  const clip = readFileSync(path.join(MEDIA_DIR, 'portrait-pan.mp4'));
  let t: InMemoryApp;
  beforeAll(async () => {
    t = await startInMemoryApp({ MAX_UPLOADS_IN_FLIGHT_PER_KEY: '1' }, { adapters: [swap(VideoProbe, new InMemoryVideoProbe().knowVideo(clip, { durationSeconds: 8, width: 640, height: 360 }))] });
  });
  afterAll(() => t.close());

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /** a connection that collects what the server says, and whether it closed */
  async function open(): Promise<{ socket: Socket; said: () => string; closed: () => boolean; waitFor: (text: RegExp) => Promise<string> }> {
    const socket = connect(Number(new URL(t.baseUrl).port), '127.0.0.1');
    let received = '';
    let ended = false;
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('close', () => (ended = true));
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    const waitFor = async (text: RegExp) => {
      for (let waited = 0; waited < 5000 && !text.test(received) && !ended; waited += 20) await sleep(20);
      return received;
    };
    return { socket, said: () => received, closed: () => ended, waitFor };
  }

  const multipart = (body: Buffer) => Buffer.concat([Buffer.from('--x\r\nContent-Disposition: form-data; name="file"; filename="clip.mp4"\r\nContent-Type: video/mp4\r\n\r\n'), body, Buffer.from('\r\n--x--\r\n')]);
  const uploadHead = (key: string, length: number) =>
    `POST /v1/uploads HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: ${key}\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: ${length}\r\nExpect: 100-continue\r\n\r\n`;

  it('an upload with a wrong key is answered 401 without 100 Continue, so its 500 MB are never sent, and its connection closes (before, 100 came at once)', async () => {
    const client = await open();
    client.socket.write(uploadHead('bd_live_wrong', 500_000_000));
    const said = await client.waitFor(/\r\n\r\n\{.*\}$/s);
    expect(said.split('\r\n')[0]).toBe('HTTP/1.1 401 Unauthorized');
    expect(said).not.toContain('100 Continue');
    expect(said).toMatch(/\r\nConnection: close\r\n/i);
    await sleep(100);
    expect(client.closed()).toBe(true);
  });

  it("an upload over the key's uploads in flight is answered 429 without 100 Continue", async () => {
    const key = await t.createKey();
    const first = await open();
    first.socket.write(uploadHead(key, 10_000_000));
    await first.waitFor(/100 Continue/);
    first.socket.write(multipart(clip).subarray(0, 1000)); // in flight, and stays so
    await sleep(200);
    const second = await open();
    second.socket.write(uploadHead(key, 10_000_000));
    const said = await second.waitFor(/\r\n\r\n\{.*\}$/s);
    expect(said.split('\r\n')[0]).toBe('HTTP/1.1 429 Too Many Requests');
    expect(said).not.toContain('100 Continue');
    first.socket.destroy();
  });

  it('an upload that passes the checks gets 100 Continue, then its body is read and the upload stored, the connection kept', async () => {
    const key = await t.createKey();
    const body = multipart(clip);
    const client = await open();
    client.socket.write(uploadHead(key, body.length));
    expect((await client.waitFor(/100 Continue\r\n\r\n/)).startsWith('HTTP/1.1 100 Continue\r\n\r\n')).toBe(true);
    client.socket.write(body);
    const said = await client.waitFor(/"video_url"/);
    expect(said.split('\r\n\r\n')[1].split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(said).not.toMatch(/\r\nConnection: close\r\n/i);
    expect(client.closed()).toBe(false);
    client.socket.destroy();
  });

  it('a JSON body is read after 100 Continue, as without the header', async () => {
    const key = await t.createKey();
    const body = JSON.stringify({ video_url: 'https://example.com/a.mp4', model: 'nonexistent' });
    const client = await open();
    client.socket.write(`POST /v1/jobs HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`);
    await client.waitFor(/100 Continue\r\n\r\n/);
    client.socket.write(body);
    const said = await client.waitFor(/\r\n\r\n\{.*\}$/s);
    expect(said.split('\r\n\r\n')[1].split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(said).toContain('model must be one of the following values');
    client.socket.destroy();
  });

  it('another expectation is answered 417 in the envelope, with its request id', async () => {
    const client = await open();
    client.socket.write('GET /health/live HTTP/1.1\r\nHost: localhost\r\nExpect: 200-ok\r\n\r\n');
    const said = await client.waitFor(/\r\n\r\n\{.*\}$/s);
    expect(said.split('\r\n')[0]).toBe('HTTP/1.1 417 Expectation Failed');
    const requestId = /\r\nX-Request-Id: (\S+)\r\n/i.exec(said)?.[1];
    expect(JSON.parse(said.split('\r\n\r\n')[1])).toEqual({ success: false, error: { code: 'invalid_request', message: 'Expect: 200-ok is not supported; only 100-continue is', request_id: requestId } });
  });
});
