import * as http from 'node:http';
import * as net from 'node:net';
import { LookupAddress } from 'node:dns';
import { Readable } from 'node:stream';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { isDependencyOutage } from '../../src/common/errors/dependency-outage';
import { AddressPolicy } from '../../src/infrastructure/net/address-policy';
import { OutboundHttpClient, OutboundRequestFailed, OutboundRequestRefused, Resolver, retryAfterSeconds } from '../../src/infrastructure/net/outbound-http.client';
import { LoopbackServer, startLoopbackServer } from './support/loopback-server';

async function drain(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a failure');
}

/** A resolver scripted per call, to stand in for a DNS server an attacker controls. */
function scriptedResolver(...answers: string[][]): Resolver & { calls: number } {
  const resolver = ((_hostname: string, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => {
    const answer = answers[Math.min(resolver.calls, answers.length - 1)];
    resolver.calls += 1;
    callback(null, answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  }) as Resolver & { calls: number };
  resolver.calls = 0;
  return resolver;
}

describe('OutboundHttpClient against real loopback servers', () => {
  let target: LoopbackServer;
  let redirector: LoopbackServer;
  const strict = new OutboundHttpClient(new AddressPolicy());
  const dev = new OutboundHttpClient(new AddressPolicy(['localhost']));
  /** the redirector's 503 answer to a POST: how much of it was written before the client hung up, and whether it was whole */
  const BUSY_BODY_BYTES = 16 * 1024 * 1024;
  const busyAnswers: Array<{ written: number; whole: boolean }> = [];

  beforeAll(async () => {
    target = await startLoopbackServer((req, res) => {
      if (req.url === '/stall-headers') return; // never answers
      if (req.url === '/trickle-body') {
        // a byte every 50 ms, never silent for long: only a deadline on the whole fetch ends it
        res.writeHead(200, { 'content-type': 'video/mp4' });
        const timer = setInterval(() => res.write(Buffer.alloc(1)), 50);
        res.on('close', () => clearInterval(timer));
        return;
      }
      if (req.url === '/stall-body') {
        res.writeHead(200, { 'content-type': 'video/mp4' });
        res.write(Buffer.alloc(1000));
        return; // and then nothing
      }
      const size = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('size') ?? 10);
      if (req.url?.startsWith('/chunked')) {
        res.writeHead(200, { 'content-type': 'video/mp4' }); // no content-length: the cap must hold while streaming
        res.end(Buffer.alloc(size, 1));
        return;
      }
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(size) });
      res.end(Buffer.alloc(size, 1));
    });
    redirector = await startLoopbackServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const to = url.searchParams.get('to');
      const hops = Number(url.searchParams.get('hops') ?? 0);
      if (req.url?.startsWith('/forever')) {
        res.writeHead(302, { location: '/forever' });
        return res.end();
      }
      if (hops > 0) {
        res.writeHead(302, { location: `/chain?hops=${hops - 1}&to=${encodeURIComponent(to ?? '')}` });
        return res.end();
      }
      if (req.method === 'POST' && !to) {
        // far more than post() reads, written 64 KiB at a time for as long as the client reads on
        res.writeHead(503, { 'retry-after': '17' });
        let written = 0;
        const timer = setInterval(() => {
          if (written >= BUSY_BODY_BYTES) return void res.end();
          res.write(Buffer.alloc(64 * 1024));
          written += 64 * 1024;
        }, 2);
        res.on('close', () => {
          clearInterval(timer);
          busyAnswers.push({ written, whole: res.writableFinished });
        });
        return;
      }
      res.writeHead(302, { location: to ?? '/' });
      res.end();
    });
  });
  afterAll(async () => {
    await target.close();
    await redirector.close();
  });
  beforeEach(() => {
    target.hits.length = 0;
    redirector.hits.length = 0;
  });

  it('Node does not call the lookup hook for an IP literal (why the client judges literals itself)', async () => {
    const lookup = jest.fn();
    await new Promise<void>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: target.port, path: '/', lookup, agent: false }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end();
    });
    expect(lookup).not.toHaveBeenCalled();
    expect(target.hits).toEqual(['GET /']);
  });

  it.each([
    ['IPv4 loopback literal', (port: number) => `http://127.0.0.1:${port}/`],
    ['IPv6 loopback literal', (port: number) => `http://[::1]:${port}/`],
    ['IPv4-mapped loopback', (port: number) => `http://[::ffff:127.0.0.1]:${port}/`],
    ['decimal loopback', (port: number) => `http://2130706433:${port}/`],
    ['a name resolving to loopback', (port: number) => `http://localhost:${port}/`],
  ])('refuses %s before any byte is sent, GET and POST alike', async (_name, url) => {
    expect(await failure(strict.fetchStream(url(target.port), { maxBytes: 100 }))).toBeInstanceOf(OutboundRequestRefused);
    expect(await failure(strict.post(url(target.port), '{}', {}, { timeoutMs: 1000 }))).toBeInstanceOf(OutboundRequestRefused);
    expect(await failure(strict.assertAllowed(url(target.port)))).toBeInstanceOf(OutboundRequestRefused);
    expect(target.hits).toEqual([]);
  });

  it('an allow-listed host name is fetched', async () => {
    const { body, contentType } = await dev.fetchStream(`http://localhost:${target.port}/ok?size=10`, { maxBytes: 100 });
    expect(contentType).toBe('video/mp4');
    expect((await drain(body)).length).toBe(10);
  });

  it('DNS rebinding: a name that answered a public address at create time and loopback at connect time is refused at connect', async () => {
    const resolver = scriptedResolver(['93.184.216.34'], ['127.0.0.1']);
    const client = new OutboundHttpClient(new AddressPolicy(), { resolve: resolver });
    await client.assertAllowed(`http://rebind.test:${target.port}/`);
    const error = await failure(client.fetchStream(`http://rebind.test:${target.port}/`, { maxBytes: 100 }));
    expect(error).toBeInstanceOf(OutboundRequestRefused);
    expect(error.message).toBe('the host rebind.test does not resolve to a public address'); // not the address it resolved to
    expect(resolver.calls).toBe(2);
    expect(target.hits).toEqual([]);
  });

  it('a DNS answer mixing a public and a private address is refused, at create time and at connect time', async () => {
    const client = new OutboundHttpClient(new AddressPolicy(), { resolve: scriptedResolver(['93.184.216.34', '10.0.0.7']) });
    expect(await failure(client.assertAllowed('http://mixed.test/'))).toBeInstanceOf(OutboundRequestRefused);
    expect(await failure(client.fetchStream(`http://mixed.test:${target.port}/`, { maxBytes: 100 }))).toBeInstanceOf(OutboundRequestRefused);
  });

  it('a name that does not resolve is refused at create time and fails at fetch time', async () => {
    const client = new OutboundHttpClient(new AddressPolicy(), { resolve: scriptedResolver([]) });
    expect((await failure(client.assertAllowed('http://nowhere.test/'))).message).toMatch(/does not resolve/);
    expect(await failure(client.fetchStream('http://nowhere.test/', { maxBytes: 1 }))).toBeInstanceOf(OutboundRequestFailed);
  });

  it("a resolver that cannot answer for now (EAI_AGAIN) is this side's outage, not the URL's fault: not refused at create time (the API's 503, retried), nor a failed fetch (the queue retries the job)", async () => {
    const unavailable: Resolver = (hostname, callback) => callback(Object.assign(new Error(`getaddrinfo EAI_AGAIN ${hostname}`), { code: 'EAI_AGAIN' }), []);
    const client = new OutboundHttpClient(new AddressPolicy(), { resolve: unavailable });
    for (const error of [await failure(client.assertAllowed('http://videos.test/clip.mp4')), await failure(client.fetchStream('http://videos.test/clip.mp4', { maxBytes: 1 }))]) {
      expect(error).not.toBeInstanceOf(OutboundRequestRefused);
      expect(error).not.toBeInstanceOf(OutboundRequestFailed);
      expect(isDependencyOutage(error)).toBe(true);
    }
  });

  it('a redirect from an allow-listed server to a private address is refused and never reaches it', async () => {
    const to = `http://127.0.0.1:${target.port}/secret`;
    const error = await failure(dev.fetchStream(`http://localhost:${redirector.port}/r?to=${encodeURIComponent(to)}`, { maxBytes: 100 }));
    expect(error).toBeInstanceOf(OutboundRequestRefused);
    expect(redirector.hits).toHaveLength(1);
    expect(target.hits).toEqual([]);
  });

  it.each(['file:///etc/passwd', 'gopher://127.0.0.1:6379/_INFO', 'http://[::1]/'])('a redirect to %s is refused', async (to) => {
    const error = await failure(dev.fetchStream(`http://localhost:${redirector.port}/r?to=${encodeURIComponent(to)}`, { maxBytes: 100 }));
    expect(error).toBeInstanceOf(OutboundRequestRefused);
  });

  it('follows exactly 3 redirects and refuses a 4th', async () => {
    const to = `http://localhost:${target.port}/ok?size=5`;
    const three = await dev.fetchStream(`http://localhost:${redirector.port}/chain?hops=2&to=${encodeURIComponent(to)}`, { maxBytes: 100 });
    expect((await drain(three.body)).length).toBe(5);
    expect(redirector.hits).toHaveLength(3);
    const error = await failure(dev.fetchStream(`http://localhost:${redirector.port}/chain?hops=3&to=${encodeURIComponent(to)}`, { maxBytes: 100 }));
    expect(error).toBeInstanceOf(OutboundRequestFailed);
    expect(error.message).toMatch(/more than 3 redirects/);
    expect(await failure(dev.fetchStream(`http://localhost:${redirector.port}/forever`, { maxBytes: 100, maxRedirects: 50 }))).toBeInstanceOf(OutboundRequestFailed);
    expect(redirector.hits.length).toBeLessThanOrEqual(3 + 4 + 4);
  });

  it('post() never follows a redirect: the 302 is the answer and its target is never called', async () => {
    const to = `http://localhost:${target.port}/hook`;
    const answer = await dev.post(`http://localhost:${redirector.port}/hook?to=${encodeURIComponent(to)}`, '{"event":"job.completed"}', { 'x-webhook-event': 'job.completed' }, { timeoutMs: 2000 });
    expect(answer).toEqual({ status: 302, retryAfterSeconds: null });
    expect(target.hits).toEqual([]);
  });

  it('post() reports Retry-After and does not read a large answer to its end', async () => {
    busyAnswers.length = 0;
    const answer = await dev.post(`http://localhost:${redirector.port}/busy`, '{}', {}, { timeoutMs: 2000 });
    expect(answer).toEqual({ status: 503, retryAfterSeconds: 17 });
    // the client hung up long before the answer's end
    while (!busyAnswers.length) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(busyAnswers[0].whole).toBe(false);
    expect(busyAnswers[0].written).toBeLessThan(BUSY_BODY_BYTES / 2);
    expect(retryAfterSeconds(new Date(Date.now() + 30_000).toUTCString())).toBeGreaterThanOrEqual(29);
    expect(retryAfterSeconds('soon')).toBeNull();
  });

  describe('byte cap at its boundary', () => {
    it.each(['/ok', '/chunked'])('%s: exactly maxBytes passes, one byte more fails', async (path) => {
      const exact = await dev.fetchStream(`http://localhost:${target.port}${path}?size=4096`, { maxBytes: 4096 });
      expect((await drain(exact.body)).length).toBe(4096);
      const over = failure(dev.fetchStream(`http://localhost:${target.port}${path}?size=4097`, { maxBytes: 4096 }).then(({ body }) => drain(body)));
      const error = await over;
      expect(error).toBeInstanceOf(OutboundRequestFailed);
      expect(error.message).toMatch(/larger than 4096 bytes/);
    });
  });

  describe('timeouts', () => {
    it('a server that never answers fails once timeoutMs has passed', async () => {
      const started = Date.now();
      const error = await failure(dev.fetchStream(`http://localhost:${target.port}/stall-headers`, { maxBytes: 100, timeoutMs: 300 }));
      expect(error).toBeInstanceOf(OutboundRequestFailed);
      expect(error.message).toMatch(/no whole answer from the server within 300 ms/);
      expect(Date.now() - started).toBeLessThan(3000);
    });

    it('a body that stalls midway errors the stream with the same failure', async () => {
      const { body } = await dev.fetchStream(`http://localhost:${target.port}/stall-body`, { maxBytes: 1_000_000, timeoutMs: 300 });
      const error = await failure(drain(body));
      expect(error).toBeInstanceOf(OutboundRequestFailed);
      expect(error.message).toMatch(/no data from the server/);
    });

    describe('a server that sends a byte now and then, never silent for the idle timeout', () => {
      let trickler: net.Server;
      let port: number;

      beforeAll(async () => {
        // raw TCP: the status line and headers a byte every 50 ms (an HTTP server sends them whole)
        trickler = net.createServer((socket) => {
          const answer = Buffer.from('HTTP/1.1 200 OK\r\ncontent-type: video/mp4\r\ncontent-length: 2\r\n' + 'x-pad: '.padEnd(4000, 'a') + '\r\n\r\nok');
          let sent = 0;
          const timer = setInterval(() => (sent < answer.length ? socket.write(answer.subarray(sent, ++sent)) : clearInterval(timer)), 50);
          socket.on('error', () => undefined);
          socket.on('close', () => clearInterval(timer));
        });
        await new Promise<void>((resolve) => trickler.listen(0, '127.0.0.1', resolve));
        port = (trickler.address() as net.AddressInfo).port;
      });
      afterAll(() => new Promise<void>((resolve) => trickler.close(() => resolve())));

      it('headers sent a byte at a time: fetchStream fails once timeoutMs has passed without a whole answer', async () => {
        const started = Date.now();
        const error = await failure(dev.fetchStream(`http://localhost:${port}/`, { maxBytes: 100, timeoutMs: 400 }));
        expect(error).toBeInstanceOf(OutboundRequestFailed);
        expect(error.message).toMatch(/no whole answer from the server within 400 ms/);
        expect(Date.now() - started).toBeLessThan(3000);
      });

      it('headers sent a byte at a time: a webhook post fails at its timeout', async () => {
        const started = Date.now();
        const error = await failure(dev.post(`http://localhost:${port}/hook`, '{}', {}, { timeoutMs: 400 }));
        expect(error).toBeInstanceOf(OutboundRequestFailed);
        expect(Date.now() - started).toBeLessThan(3000);
      });
    });

    it('a body sent a byte at a time fails at the fetch deadline', async () => {
      const started = Date.now();
      const { body } = await dev.fetchStream(`http://localhost:${target.port}/trickle-body`, { maxBytes: 1_000_000, timeoutMs: 1000, deadlineMs: 500 });
      const error = await failure(drain(body));
      expect(error).toBeInstanceOf(OutboundRequestFailed);
      expect(error.message).toMatch(/the fetch took longer than 500 ms/);
      expect(Date.now() - started).toBeLessThan(3000);
    });

    it('a whole fetch within its deadline is not cut', async () => {
      const { body } = await dev.fetchStream(`http://localhost:${target.port}/ok?size=100000`, { maxBytes: 100_000, deadlineMs: 5000 });
      expect((await drain(body)).length).toBe(100_000);
    });

    it('an abort stops the body midway; an aborted signal stops the fetch before it is sent', async () => {
      const stop = new AbortController();
      const { body } = await dev.fetchStream(`http://localhost:${target.port}/trickle-body`, { maxBytes: 1_000_000, timeoutMs: 1000, signal: stop.signal });
      setTimeout(() => stop.abort(), 200);
      const error = await failure(drain(body));
      expect(error).toBeInstanceOf(OutboundRequestFailed);
      expect(error.message).toMatch(/the fetch was canceled/);
      const hits = target.hits.length;
      const before = await failure(dev.fetchStream(`http://localhost:${target.port}/ok`, { maxBytes: 100, signal: stop.signal }));
      expect(before).toBeInstanceOf(OutboundRequestFailed);
      expect(target.hits.length).toBe(hits);
    });

    it('a connection that cannot be made in time fails with the connect timeout', async () => {
      const never: Resolver = () => undefined; // DNS that never answers
      const client = new OutboundHttpClient(new AddressPolicy(), { resolve: never, connectTimeoutMs: 200 });
      const error = await failure(client.fetchStream('http://slow.test/', { maxBytes: 100, timeoutMs: 10_000 }));
      expect(error).toBeInstanceOf(OutboundRequestFailed);
      expect(error.message).toMatch(/could not connect within 200 ms/);
    });
  });
});

describe('OutboundHttpClient: what real servers send back for a whole file', () => {
  let server: LoopbackServer;
  const client = new OutboundHttpClient(new AddressPolicy(['localhost']));
  const file = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 31) % 256));

  beforeAll(async () => {
    server = await startLoopbackServer((req, res) => {
      const path = req.url ?? '/';
      if (path === '/partial') {
        res.writeHead(206, { 'content-range': `bytes 0-99999/${file.length}`, 'content-length': '100000' });
        return res.end(file.subarray(0, 100000));
      }
      if (path === '/bad-location') {
        res.writeHead(302, { location: 'http://exa mple.com/v.mp4' });
        return res.end();
      }
      if (path === '/utf8-location') {
        res.writeHead(302, { location: Buffer.from('/vidéo.mp4', 'utf8').toString('latin1') });
        return res.end();
      }
      if (path === '/vid%C3%A9o.mp4') {
        res.writeHead(200, { 'content-length': String(file.length) });
        return res.end(file);
      }
      if (path === '/gzip' || path === '/br') {
        const encoded = path === '/gzip' ? gzipSync(file) : brotliCompressSync(file);
        res.writeHead(200, { 'content-encoding': path.slice(1), 'content-length': String(encoded.length) });
        return res.end(encoded);
      }
      if (path === '/compress') {
        res.writeHead(200, { 'content-encoding': 'compress' });
        return res.end(file);
      }
      if (path === '/cut-short') {
        res.writeHead(200, { 'content-length': String(file.length) });
        res.write(file.subarray(0, 1000));
        return setTimeout(() => res.socket?.destroy(), 50);
      }
      if (path === '/large') {
        res.writeHead(200, { 'content-length': String(16 * 1024 * 1024) });
        return res.end(Buffer.alloc(16 * 1024 * 1024, 7));
      }
      res.writeHead(404);
      res.end();
    });
  });
  afterAll(() => server.close());

  const url = (path: string) => `http://localhost:${server.port}${path}`;

  it('a 206 (part of the file) to a GET of the whole fails the fetch (half a video was matted and billed)', async () => {
    const error = await failure(client.fetchStream(url('/partial'), { maxBytes: 1e6 }));
    expect(error).toBeInstanceOf(OutboundRequestFailed);
    expect(error.message).toBe('the server answered HTTP 206 with a part of the file, not the whole of it');
  });

  it('a redirect to no URL fails the fetch as the server\'s (it was a TypeError: this side\'s fault, retried five times)', async () => {
    const error = await failure(client.fetchStream(url('/bad-location'), { maxBytes: 1e6 }));
    expect(error).toBeInstanceOf(OutboundRequestFailed);
    expect(error.message).toBe('the server redirected to an invalid URL');
  });

  it('a redirect whose Location is raw UTF-8 goes where browsers go (encoded twice, it was a 404)', async () => {
    const { body } = await client.fetchStream(url('/utf8-location'), { maxBytes: 1e6 });
    expect((await drain(body)).equals(file)).toBe(true);
  });

  it.each(['/gzip', '/br'])('a body the server compressed although identity was asked for (%s) is decoded, not taken for the video', async (path) => {
    const { body } = await client.fetchStream(url(path), { maxBytes: 1e6 });
    expect((await drain(body)).equals(file)).toBe(true);
  });

  it('a compressed body decoding past the size limit fails at the limit', async () => {
    const { body } = await client.fetchStream(url('/gzip'), { maxBytes: 100_000 });
    expect((await failure(drain(body))).message).toBe('the response is larger than 100000 bytes');
  });

  it('an encoding it cannot decode fails the fetch saying so', async () => {
    expect((await failure(client.fetchStream(url('/compress'), { maxBytes: 1e6 }))).message).toBe('the server sent the file encoded as compress, which was not asked for');
  });

  it('a body cut short says so in words (it said "aborted")', async () => {
    const { body } = await client.fetchStream(url('/cut-short'), { maxBytes: 1e6 });
    expect((await failure(drain(body))).message).toBe('the connection closed before the whole answer came');
  });

  it("a body held back by this side's slow reader is not the server's silence (it failed: no data from the server)", async () => {
    const { body } = await client.fetchStream(url('/large'), { maxBytes: 32 * 1024 * 1024, timeoutMs: 400 });
    let read = 0;
    for await (const chunk of body) {
      if (read === 0) await new Promise((resolve) => setTimeout(resolve, 1200)); // storage slower than the server
      read += (chunk as Buffer).length;
    }
    expect(read).toBe(16 * 1024 * 1024);
  });

  it("a name refused at create time is refused without what it resolved to (a key's client learnt internal names' addresses)", async () => {
    const strict = new OutboundHttpClient(new AddressPolicy(), { resolve: scriptedResolver(['10.0.0.7']) });
    const error = await failure(strict.assertAllowed('http://redis.internal/'));
    expect(error.message).toBe('the host redis.internal does not resolve to a public address');
    const unknown = new OutboundHttpClient(new AddressPolicy(), { resolve: (_host, callback) => callback(Object.assign(new Error('no'), { code: 'ENOTFOUND' }), []) });
    expect((await failure(unknown.assertAllowed('http://nowhere.internal/'))).message).toBe('the host nowhere.internal does not resolve to a public address');
    expect((await failure(strict.assertAllowed('http://10.0.0.7/'))).message).toBe('the address 10.0.0.7 is not a public address');
  });
});
