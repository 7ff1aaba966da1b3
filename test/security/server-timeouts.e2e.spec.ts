/**
 * The API server's timeouts are chosen, not Node's defaults: an idle keep-alive connection outlives
 * proxies' 60 s (Node's 5 s made a client reusing its connection after a pause hit a closed socket),
 * headers must arrive after that, and a whole request gets 30 minutes (a 500 MB upload at 2.3 Mbit/s).
 */
import * as http from 'node:http';
import { Server } from 'node:http';
import { connect, Socket } from 'node:net';
import { startTestApp, TestApp } from '../support/test-app';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function post(agent: http.Agent, baseUrl: string, key: string): Promise<{ status: number; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ video_url: 'http://93.184.216.34/v.mp4', auto_start: false });
    const req = http.request(new URL('/v1/jobs', baseUrl), { method: 'POST', agent, headers: { 'x-api-key': key, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('HTTP server timeouts (defaults)', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp();
    key = await t.createKey();
  });
  afterAll(() => t.close());

  it('keep-alive 65 s, headers 66 s, whole request 30 min', () => {
    const server = t.app.getHttpServer() as Server;
    expect([server.keepAliveTimeout, server.headersTimeout, server.requestTimeout]).toEqual([65000, 66000, 1800000]);
  });

  it('a client reusing its connection after 6 s idle gets its POST answered (Node\'s 5 s default closed it)', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect(await post(agent, t.baseUrl, key)).toEqual({ status: 200, reused: false });
      await sleep(6000);
      expect(await post(agent, t.baseUrl, key)).toEqual({ status: 200, reused: true });
    } finally {
      agent.destroy();
    }
  }, 20_000);
});

describe('HTTP_KEEP_ALIVE_TIMEOUT_MS at its boundary', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ HTTP_KEEP_ALIVE_TIMEOUT_MS: '1500', HTTP_HEADERS_TIMEOUT_MS: '2000', HTTP_REQUEST_TIMEOUT_MS: '2000' });
  });
  afterAll(() => t.close());

  it('an idle connection stays open until the timeout, and is closed soon after it', async () => {
    const { port } = new URL(t.baseUrl);
    const socket: Socket = connect(Number(port), '127.0.0.1');
    let closedAt = 0;
    socket.on('close', () => (closedAt = Date.now()));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('GET /health/live HTTP/1.1\r\nHost: localhost\r\n\r\n');
    while (!answer.includes('\r\n\r\n')) await sleep(10);
    const answeredAt = Date.now();
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer.toLowerCase()).toContain('keep-alive: timeout=1');
    await sleep(1200);
    expect(closedAt).toBe(0);
    while (!closedAt && Date.now() - answeredAt < 8000) await sleep(20);
    expect(closedAt - answeredAt).toBeGreaterThanOrEqual(1400);
    // Node closes at the timeout plus a second of its own (about 2.5 s here), long before its default (5 s + 1 s); late under load
    expect(closedAt - answeredAt).toBeLessThan(5000);
    socket.destroy();
  });
});

describe('HTTP_SHUTDOWN_GRACE_MS', () => {
  it('a request in flight holds close() for the grace, then its connection is cut', async () => {
    const t = await startTestApp({ HTTP_SHUTDOWN_GRACE_MS: '1500' });
    const key = await t.createKey();
    const socket: Socket = connect(Number(new URL(t.baseUrl).port), '127.0.0.1');
    let closedAt = 0;
    socket.on('close', () => (closedAt = Date.now()));
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    // an upload that stops after its first bytes: the request stays in flight (its timeout is 30 min)
    socket.write(`POST /v1/uploads HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: ${key}\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: 10000000\r\n\r\n--x\r\n`);
    await sleep(1000); // the request reached the server (300 ms was short on a starved machine)
    const closing = Date.now();
    await t.close();
    expect(Date.now() - closing).toBeGreaterThanOrEqual(1400);
    expect(Date.now() - closing).toBeLessThan(6000);
    expect(closedAt).toBeGreaterThan(0);
    socket.destroy();
  }, 20_000);
});

describe('HTTP_BODY_TIMEOUT_MS: a body read into memory must arrive in time', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp({ HTTP_BODY_TIMEOUT_MS: '3000' });
    key = await t.createKey();
  });
  afterAll(() => t.close());

  /** sends the request's head and `first` bytes of its body, then nothing: what the server answers, and when the connection closed */
  async function trickled(head: string, first: string, waitMs: number): Promise<{ answer: string; closedAfterMs: number | null }> {
    const socket: Socket = connect(Number(new URL(t.baseUrl).port), '127.0.0.1');
    let answer = '';
    let closedAt = 0;
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('close', () => (closedAt = Date.now()));
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    const sentAt = Date.now();
    socket.write(head + first);
    await sleep(waitMs);
    socket.destroy();
    return { answer, closedAfterMs: closedAt ? closedAt - sentAt : null };
  }

  it('a JSON body still arriving after the timeout is answered 408 in the envelope and its connection closed; one arriving within it is served', async () => {
    const body = JSON.stringify({ video_url: 'http://93.184.216.34/v.mp4', auto_start: false });
    const head = `POST /v1/jobs HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    const stalled = await trickled(head, body.slice(0, 10), 6000);
    expect(stalled.answer).toMatch(/^HTTP\/1\.1 408/);
    expect(stalled.answer).toContain('"code":"invalid_request"');
    expect(stalled.closedAfterMs).toBeGreaterThanOrEqual(2900);
    expect(stalled.closedAfterMs).toBeLessThan(6000);

    const socket: Socket = connect(Number(new URL(t.baseUrl).port), '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(head + body.slice(0, 10));
    await sleep(300);
    socket.write(body.slice(10));
    while (!answer.includes('\r\n\r\n')) await sleep(10);
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    socket.destroy();
  }, 20_000);

  it('an upload trickled for as long is not cut (its file streams to storage; the request timeout holds it)', async () => {
    const head = `POST /v1/uploads HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: ${key}\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: 10000000\r\n\r\n`;
    const upload = await trickled(head, '--x\r\n', 4000);
    expect(upload.answer).toBe('');
    expect(upload.closedAfterMs).toBeNull();
  }, 20_000);
});
