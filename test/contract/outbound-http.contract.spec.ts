import { randomBytes } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { InMemoryOutboundHttp } from '../../src/common/in-memory.outbound-http';
import { OutboundHttp, OutboundRequestFailed, OutboundRequestRefused } from '../../src/common/outbound-http';
import { AddressPolicy } from '../../src/infrastructure/net/address-policy';
import { OutboundHttpClient } from '../../src/infrastructure/net/outbound-http.client';

interface Post {
  url: string;
  body: string;
  headers: Record<string, string>;
}

interface Harness {
  http: OutboundHttp;
  /** Makes `body` answer at a URL the adapter may fetch, and returns that URL. */
  serve(path: string, body: Buffer): string;
  /** A URL that answers 404. */
  missing(): string;
  /** What POSTs to `serve`d URLs are answered, and what they received. */
  answerPosts(status: number, retryAfterSeconds: number | null): void;
  posts(): Post[];
  close(): Promise<void>;
}

/** The SSRF-guarded client against a loopback server, loopback allow-listed as development allows. */
async function realClient(): Promise<Harness> {
  const bodies = new Map<string, Buffer>();
  const posts: Post[] = [];
  let answer = { status: 200, retryAfterSeconds: null as number | null };
  const server: Server = createServer((req, res) => {
    if (req.method === 'POST') {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        posts.push({ url: `${base}${req.url}`, body: Buffer.concat(chunks).toString(), headers: req.headers as Record<string, string> });
        if (answer.retryAfterSeconds !== null) res.setHeader('retry-after', String(answer.retryAfterSeconds));
        res.writeHead(answer.status).end();
      });
      return;
    }
    const body = bodies.get(req.url ?? '');
    if (!body) return void res.writeHead(404).end('no');
    res.writeHead(200, { 'content-length': String(body.length) }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    http: new OutboundHttpClient(new AddressPolicy(['127.0.0.1'])),
    serve: (path, body) => (bodies.set(path, body), `${base}${path}`),
    missing: () => `${base}/missing-${randomBytes(4).toString('hex')}`,
    answerPosts: (status, retryAfterSeconds) => void (answer = { status, retryAfterSeconds }),
    posts: () => posts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function inMemory(): Harness {
  const http = new InMemoryOutboundHttp();
  return {
    http,
    serve: (path, body) => (http.serve(`https://files.example.com${path}`, body), `https://files.example.com${path}`),
    missing: () => `https://files.example.com/missing-${randomBytes(4).toString('hex')}`,
    answerPosts: (status, retryAfterSeconds) => Object.assign(http, { postStatus: status, postRetryAfterSeconds: retryAfterSeconds }),
    posts: () => http.posts,
    close: async () => undefined,
  };
}

async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

/** The fetch and the reading of its body, as one outcome. */
async function fetched(http: OutboundHttp, url: string, maxBytes: number): Promise<Buffer> {
  return readAll((await http.fetchStream(url, { maxBytes, timeoutMs: 5000 })).body);
}

describe.each([
  ['the SSRF-guarded client (loopback server)', realClient],
  ['in memory', async () => inMemory()],
])('OutboundHttp contract: %s', (_name, start) => {
  let h: Harness;
  beforeAll(async () => {
    h = await start();
  });
  afterAll(() => h?.close());

  it('fetches a served body byte for byte', async () => {
    const bytes = randomBytes(300_000);
    expect((await fetched(h.http, h.serve('/clip.mp4', bytes), bytes.length)).equals(bytes)).toBe(true);
  });

  it('a missing URL fails with OutboundRequestFailed and its status', async () => {
    const error = await fetched(h.http, h.missing(), 1000).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(OutboundRequestFailed);
    expect((error as OutboundRequestFailed).status).toBe(404);
  });

  it('a body over maxBytes fails with OutboundRequestFailed; one at maxBytes passes', async () => {
    const bytes = randomBytes(10_000);
    const url = h.serve('/big.bin', bytes);
    await expect(fetched(h.http, url, bytes.length - 1)).rejects.toBeInstanceOf(OutboundRequestFailed);
    expect((await fetched(h.http, url, bytes.length)).length).toBe(bytes.length);
  });

  it.each(['http://10.0.0.7/clip.mp4', 'http://169.254.169.254/latest/meta-data', 'http://192.168.1.1/', 'ftp://files.example.com/clip.mp4', 'not a url'])('refuses %s with OutboundRequestRefused, before any request', async (url) => {
    await expect(h.http.assertAllowed(url)).rejects.toBeInstanceOf(OutboundRequestRefused);
    await expect(h.http.fetchStream(url, { maxBytes: 1000 })).rejects.toBeInstanceOf(OutboundRequestRefused);
    await expect(h.http.post(url, '{}', {}, { timeoutMs: 1000 })).rejects.toBeInstanceOf(OutboundRequestRefused);
  });

  it('a fetch whose signal has aborted fails with OutboundRequestFailed; one within its deadline passes', async () => {
    const bytes = randomBytes(1000);
    const url = h.serve('/aborted.bin', bytes);
    const stop = new AbortController();
    stop.abort();
    await expect(h.http.fetchStream(url, { maxBytes: bytes.length, signal: stop.signal })).rejects.toBeInstanceOf(OutboundRequestFailed);
    expect((await readAll((await h.http.fetchStream(url, { maxBytes: bytes.length, deadlineMs: 5000, signal: new AbortController().signal })).body)).equals(bytes)).toBe(true);
  });

  it('allows a URL it may fetch, answering it parsed', async () => {
    const url = h.serve('/ok', Buffer.from('ok'));
    expect((await h.http.assertAllowed(url)).toString()).toBe(url);
  });

  it("posts the body with the caller's headers and reports the status and Retry-After", async () => {
    const url = h.serve('/hook', Buffer.from(''));
    h.answerPosts(503, 7);
    expect(await h.http.post(url, '{"event":"job.completed"}', { 'x-signature': 'abc' }, { timeoutMs: 5000 })).toEqual({ status: 503, retryAfterSeconds: 7 });
    h.answerPosts(204, null);
    expect(await h.http.post(url, '{"n":2}', {}, { timeoutMs: 5000 })).toEqual({ status: 204, retryAfterSeconds: null });
    const received = h.posts().slice(-2);
    expect(received.map((post) => [post.url, post.body])).toEqual([[url, '{"event":"job.completed"}'], [url, '{"n":2}']]);
    expect(received[0].headers['x-signature']).toBe('abc');
  });
});
