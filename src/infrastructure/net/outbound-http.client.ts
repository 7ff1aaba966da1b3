import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import * as http from 'node:http';
import * as https from 'node:https';
import { isIP, LookupFunction } from 'node:net';
import { Readable, Transform } from 'node:stream';
import * as zlib from 'node:zlib';
import { FetchOptions, OutboundHttp, OutboundRequestFailed, OutboundRequestRefused } from '../../common/outbound-http';
import { AddressPolicy } from './address-policy';

// The port and its errors live in src/common (use cases import them); re-exported for this adapter's callers.
export { FetchOptions, OutboundRequestFailed, OutboundRequestRefused } from '../../common/outbound-http';

/** Name resolution as the client sees it: every address of a host (the default is the system resolver, dns.lookup). */
export type Resolver = (hostname: string, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

export interface OutboundClientOptions {
  /** Replaces DNS (tests simulate rebinding with it). */
  resolve?: Resolver;
  /** DNS plus TCP (plus TLS) handshake must finish within this; default 10 s. */
  connectTimeoutMs?: number;
}

export const MAX_REDIRECTS = 3;
/** What post() reads of a response body before hanging up (webhook receivers' bodies are not used). */
const MAX_POST_RESPONSE_BYTES = 64 * 1024;

/** getaddrinfo's "try again later": no answer from the resolver now, which says nothing about the name */
const isTemporaryLookupFailure = (error: Error): boolean => (error as NodeJS.ErrnoException).code === 'EAI_AGAIN';

const systemResolver: Resolver = (hostname, callback) =>
  dnsLookup(hostname, { all: true }, (error, addresses) => callback(error, error ? [] : addresses));

/** WHATWG URL parsing normalises decimal/octal/hex IPv4 spellings, so checks see the real address. */
export function parseOutboundUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundRequestRefused('not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundRequestRefused('only http and https URLs are allowed');
  if (url.username || url.password) throw new OutboundRequestRefused('URLs with credentials are not allowed');
  return url;
}

const hostOf = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '');

/**
 * A fetch's error as the port names it. A resolver that could not answer for now stays itself: the
 * job's input is not unreachable (a final input_unreachable), this side's DNS is, and the job goes
 * back to the queue's retry like any outage of this side's (ProcessJobHandler).
 */
const asFailure = (error: Error): Error =>
  error instanceof OutboundRequestRefused || error instanceof OutboundRequestFailed || isTemporaryLookupFailure(error) ? error : new OutboundRequestFailed(plainReason(error));

/**
 * Node's wording of a connection's failure as a client reads it in its job's error: "aborted",
 * "socket hang up" and the HTTP parser's "Parse Error: Expected HTTP/" told it little.
 */
function plainReason(error: NodeJS.ErrnoException): string {
  // "socket hang up" has ECONNRESET's code too
  if (error.message === 'socket hang up') return 'the server closed the connection without answering';
  if (error.message === 'aborted' || error.code === 'ECONNRESET') return 'the connection closed before the whole answer came';
  if (error.code?.startsWith('HPE_')) return "the server's answer is not valid HTTP";
  if (error.code === 'ECONNREFUSED') return 'the server refused the connection';
  return error.message;
}

/** a duration as a job's error says it: seconds from a second on */
const durationText = (ms: number): string => (ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`);

const serverSilent = (idleMs: number): OutboundRequestFailed => new OutboundRequestFailed(`no data from the server for ${durationText(idleMs)}`);

/**
 * Where a redirect points, from its Location header resolved against the URL that answered. A header
 * of raw UTF-8 (which Node reads as Latin-1) is read as UTF-8, as browsers and curl read it: encoded
 * twice, /vidéo.mp4 became a 404. One that is no URL fails the fetch (it was a TypeError, and the job
 * was retried five times as this side's fault).
 */
function redirectTarget(location: string, base: URL): URL {
  const bytes = Buffer.from(location, 'latin1');
  const decoded = bytes.toString('utf8');
  const text = Buffer.from(decoded, 'utf8').equals(bytes) ? decoded : location;
  let target: URL;
  try {
    target = new URL(text, base);
  } catch {
    throw new OutboundRequestFailed('the server redirected to an invalid URL');
  }
  return parseOutboundUrl(target.toString());
}

/** the encodings a server may send a body in although identity was asked for (an S3 object stored compressed), decoded */
const DECODERS: Readonly<Record<string, () => Transform>> = {
  gzip: () => zlib.createGunzip(),
  'x-gzip': () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
};

/** statuses whose body is the whole resource a GET asked for */
const WHOLE_BODY_STATUSES = new Set([200, 203]);

/** Seconds from a Retry-After header (delta-seconds or an HTTP date), or null. */
export function retryAfterSeconds(header: string | undefined, now = Date.now()): number | null {
  if (!header) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const date = Date.parse(header);
  return Number.isFinite(date) ? Math.max(0, Math.ceil((date - now) / 1000)) : null;
}

/**
 * The one client for everything the server fetches or calls on a user's behalf (video_url, background
 * image_url, webhooks).
 *
 * - http and https only, no credentials in URLs.
 * - Host names are checked where the connection is made: Node calls the `lookup` hook for the socket it
 *   opens, and the hook refuses any non-public answer, so a DNS answer that changes between the create-time
 *   check and the connection (rebinding) cannot pass. Node does not call `lookup` for IP literals, so
 *   those are checked before the request is made.
 * - Redirects are followed by hand (at most MAX_REDIRECTS), every hop checked the same way; post() never follows.
 * - Connect and idle timeouts, a bounded wait for each answer's headers, an optional deadline over the
 *   whole fetch, a byte cap, no keep-alive sockets shared with anything else.
 */
export class OutboundHttpClient extends OutboundHttp {
  private readonly resolveHost: Resolver;
  private readonly connectTimeoutMs: number;
  // Own agents without keep-alive: a pooled socket is never reused past a check made for another request.
  private readonly agents = { 'http:': new http.Agent({ keepAlive: false }), 'https:': new https.Agent({ keepAlive: false }) };

  constructor(
    private readonly policy: AddressPolicy,
    options: OutboundClientOptions = {},
  ) {
    super();
    this.resolveHost = options.resolve ?? systemResolver;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  }

  /** Refuses a URL whose literal address or DNS answer is not public (used at create time). */
  async assertAllowed(raw: string): Promise<URL> {
    const url = parseOutboundUrl(raw);
    const host = hostOf(url);
    if (this.policy.isHostAllowListed(host)) return url;
    const addresses = isIP(host) ? [host] : await this.resolve(host);
    const refused = addresses.find((address) => !this.policy.isAddressAllowed(address));
    if (refused) throw notPublic(host);
    return url;
  }

  /**
   * GETs `raw`, returning the body as a stream that errors (OutboundRequestFailed) past `maxBytes`,
   * when the server stalls, past `deadlineMs` or when `signal` aborts.
   */
  async fetchStream(raw: string, options: FetchOptions): Promise<{ body: Readable; contentType: string | undefined }> {
    let url = parseOutboundUrl(raw);
    const maxRedirects = Math.min(options.maxRedirects ?? MAX_REDIRECTS, MAX_REDIRECTS);
    const guard = new ExchangeGuard('the fetch', options.deadlineMs, options.signal);
    const idleMs = options.timeoutMs ?? 30_000;
    try {
      for (let hop = 0; hop <= maxRedirects; hop += 1) {
        const response = await this.request(url, idleMs, { method: 'GET', headers: { 'accept-encoding': 'identity' } }, guard);
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400 && response.headers.location) {
          response.destroy();
          url = redirectTarget(response.headers.location, url);
          continue;
        }
        if (!WHOLE_BODY_STATUSES.has(status)) {
          response.destroy();
          // a 206 carries a part of the file: taken for the whole, half a video was matted and billed
          throw new OutboundRequestFailed(status === 206 ? 'the server answered HTTP 206 with a part of the file, not the whole of it' : `the server answered HTTP ${status}`, status);
        }
        const declared = Number(response.headers['content-length'] ?? 0);
        if (declared > options.maxBytes) {
          response.destroy();
          throw new OutboundRequestFailed(`the response is larger than ${options.maxBytes} bytes`);
        }
        let decoder: Transform | undefined;
        try {
          decoder = decoderOf(response);
        } catch (error) {
          response.destroy();
          throw error;
        }
        const body = guard.watch(byteCap(options.maxBytes));
        response.on('error', (error) => body.destroy(asFailure(error)));
        decoder?.on('error', () => body.destroy(new OutboundRequestFailed(`the server's ${String(response.headers['content-encoding'])}-compressed answer could not be decoded`)));
        body.on('close', () => {
          response.destroy();
          decoder?.destroy();
          guard.end();
        });
        (decoder ? response.pipe(decoder) : response).pipe(body);
        const reader = decoder ?? body;
        watchSilence(response, idleMs, () => response.readableFlowing === false || reader.writableNeedDrain, () => response.destroy(serverSilent(idleMs)));
        return { body, contentType: response.headers['content-type'] };
      }
    } catch (error) {
      guard.end();
      throw error;
    }
    guard.end();
    throw new OutboundRequestFailed(`more than ${maxRedirects} redirects`);
  }

  /**
   * POSTs a body and reports the status without following redirects (webhooks: a 3xx is a failure).
   * The whole exchange ends within `timeoutMs`: the answer's headers are awaited that long at most,
   * and at most 64 KiB of its body is read (then discarded) until then.
   */
  async post(raw: string, body: string, headers: Record<string, string>, options: { timeoutMs: number }): Promise<{ status: number; retryAfterSeconds: number | null }> {
    const url = parseOutboundUrl(raw);
    const guard = new ExchangeGuard('the request', options.timeoutMs);
    const send = { method: 'POST', body, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers } };
    const response = await this.request(url, options.timeoutMs, send, guard).catch((error: unknown) => {
      guard.end();
      throw error;
    });
    guard.watch(response);
    response.on('close', () => guard.end());
    let read = 0;
    response.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read > MAX_POST_RESPONSE_BYTES) response.destroy();
    });
    response.on('error', () => undefined);
    const header = response.headers['retry-after'];
    return { status: response.statusCode ?? 0, retryAfterSeconds: retryAfterSeconds(Array.isArray(header) ? header[0] : header) };
  }

  /**
   * One request answered with its status, headers and whole body (at most `maxBytes`), without following
   * redirects: for services the operator configured (remote workers), whose hosts the policy allow-lists.
   * `timeoutMs` bounds the wait for the whole headers and, separately, the reading of the body.
   */
  async exchange(
    raw: string,
    send: { method: string; headers?: Record<string, string>; body?: string; timeoutMs: number; maxBytes: number },
  ): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
    const url = parseOutboundUrl(raw);
    const bodyHeaders: Record<string, string> =
      send.body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(send.body)) };
    const response = await this.request(url, send.timeoutMs, { method: send.method, body: send.body, headers: { ...bodyHeaders, ...send.headers } });
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const guard = new ExchangeGuard('the answer', send.timeoutMs);
      guard.watch(response);
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > send.maxBytes) response.destroy(new OutboundRequestFailed(`the response is larger than ${send.maxBytes} bytes`));
        else chunks.push(chunk);
      });
      response.on('end', () => {
        guard.end();
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) });
      });
      response.on('error', (error) => {
        guard.end();
        reject(asFailure(error));
      });
      response.on('close', () => {
        guard.end();
        if (!response.complete) reject(new OutboundRequestFailed('the connection closed before the answer was complete'));
      });
    });
  }

  /**
   * Sends one request and resolves with its answer once the headers are whole. `idleTimeoutMs` is the
   * longest silence of the connection over the whole exchange, and the longest wait for the headers;
   * `guard` (the caller's deadline and signal) is pointed at the request until the answer comes.
   */
  private request(url: URL, idleTimeoutMs: number, send: { method: string; body?: string; headers: Record<string, string> }, guard?: ExchangeGuard): Promise<http.IncomingMessage> {
    const host = hostOf(url);
    // Node skips the lookup hook for IP literals: they are judged here instead.
    if (isIP(host) && !this.policy.isAddressAllowed(host) && !this.policy.isHostAllowListed(host)) {
      return Promise.reject(new OutboundRequestRefused(`the address ${host} is not a public address`));
    }
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      let response: http.IncomingMessage | undefined;
      const req = transport.request(url, {
        method: send.method,
        agent: this.agents[url.protocol as 'http:' | 'https:'],
        lookup: this.guardedLookup(host),
        headers: { 'user-agent': 'Backdrop/1.0', ...send.headers },
      });
      const connectTimer = setTimeout(() => req.destroy(new OutboundRequestFailed(`could not connect within ${durationText(this.connectTimeoutMs)}`)), this.connectTimeoutMs);
      // headers sent a byte at a time would keep the idle timeout from ever firing
      const answerTimer = setTimeout(() => req.destroy(new OutboundRequestFailed(`no whole answer from the server within ${durationText(idleTimeoutMs)}`)), idleTimeoutMs);
      const clearTimers = (): void => {
        clearTimeout(connectTimer);
        clearTimeout(answerTimer);
      };
      req.on('socket', (socket) => socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer)));
      // Idle timeout over the whole exchange: before the headers it fails the request, after them the body stream.
      req.setTimeout(idleTimeoutMs, () => {
        const error = serverSilent(idleTimeoutMs);
        if (response) response.destroy(error);
        else req.destroy(error);
      });
      req.on('response', (incoming) => {
        clearTimers();
        response = incoming;
        resolve(incoming);
      });
      req.on('error', (error) => {
        clearTimers();
        reject(asFailure(error));
      });
      req.on('close', clearTimers);
      guard?.watch(req);
      req.end(send.body);
    });
  }

  /** The connect-time check: every address the resolver answers must be allowed, or the connection is refused. */
  private guardedLookup(host: string): LookupFunction {
    const allowListed = this.policy.isHostAllowListed(host);
    return (hostname, options, callback) => {
      this.resolveHost(hostname, (error, addresses) => {
        if (error) return callback(error, '', 0);
        const family = (options as { family?: number | string }).family;
        const wanted = family === 4 || family === 'IPv4' ? 4 : family === 6 || family === 'IPv6' ? 6 : 0;
        const list = addresses.filter((entry) => !wanted || entry.family === wanted);
        if (list.length === 0) return callback(Object.assign(new Error(notPublic(hostname).message), { code: 'ENOTFOUND' }), '', 0);
        const refused = list.find((entry) => !allowListed && !this.policy.isAddressAllowed(entry.address));
        if (refused) return callback(notPublic(hostname), '', 0);
        if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
        callback(null, list[0].address, list[0].family);
      });
    };
  }

  /**
   * The host's addresses. A name that does not exist is refused (a 400 at create); a resolver that
   * could not answer for now (EAI_AGAIN) rejects with its own error, which the API answers 503 (a
   * client retries it), where a 400 told it that the URL was wrong.
   */
  private resolve(host: string): Promise<string[]> {
    return new Promise((resolve, reject) => {
      this.resolveHost(host, (error, addresses) => {
        if (error && isTemporaryLookupFailure(error)) reject(error);
        else if (error || addresses.length === 0) reject(notPublic(host));
        else resolve(addresses.map((entry) => entry.address));
      });
    });
  }
}

/**
 * Ends an exchange at its deadline, or when its signal aborts, on whichever stream it has reached by
 * then (the request before the answer, the body after it).
 */
class ExchangeGuard {
  private stream?: { destroy(error?: Error): unknown };
  private failure?: OutboundRequestFailed;
  private readonly timer?: NodeJS.Timeout;
  private readonly onAbort = (): void => this.fail(new OutboundRequestFailed(`${this.what} was canceled`));

  constructor(
    private readonly what: string,
    deadlineMs?: number,
    private readonly signal?: AbortSignal,
  ) {
    if (deadlineMs !== undefined) this.timer = setTimeout(() => this.fail(new OutboundRequestFailed(`${what} took longer than ${durationText(deadlineMs)}`)), deadlineMs);
    if (signal?.aborted) this.onAbort();
    else signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** The exchange is now at `stream`: the failure, when it comes (or has come), destroys it. */
  watch<T extends { destroy(error?: Error): unknown }>(stream: T): T {
    this.stream = stream;
    if (this.failure) stream.destroy(this.failure);
    return stream;
  }

  /** The exchange is over: no deadline, no listener left behind. */
  end(): void {
    clearTimeout(this.timer);
    this.signal?.removeEventListener('abort', this.onAbort);
  }

  private fail(error: OutboundRequestFailed): void {
    if (this.failure) return;
    this.failure = error;
    this.end();
    this.stream?.destroy(error);
  }
}

function byteCap(maxBytes: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > maxBytes) callback(new OutboundRequestFailed(`the response is larger than ${maxBytes} bytes`));
      else callback(null, chunk);
    },
  });
}

/**
 * A refusal that does not say what a name resolved to, nor whether it resolved: a key's client
 * could learn the addresses of the server's internal names (http://redis/, http://db.internal/)
 * from "the address 10.0.0.7 of redis is not a public address". A literal address is the client's own.
 */
function notPublic(host: string): OutboundRequestRefused {
  return new OutboundRequestRefused(isIP(host) ? `the address ${host} is not a public address` : `the host ${host} does not resolve to a public address`);
}

/** the body's decoder where the server compressed it; one it cannot decode fails the fetch */
function decoderOf(response: http.IncomingMessage): Transform | undefined {
  const encoding = String(response.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '') return undefined;
  const decoder = DECODERS[encoding];
  if (!decoder) throw new OutboundRequestFailed(`the server sent the file encoded as ${encoding.slice(0, 40)}, which was not asked for`);
  return decoder();
}

/**
 * Fails a body whose server sends nothing for `idleMs` while this side would read it: the socket's
 * own timeout also ran while this side held the body back (`heldBack`: storage slower than the
 * server, an S3 part taking 30 s), and the client's server was blamed with "no data from the server".
 */
function watchSilence(response: http.IncomingMessage, idleMs: number, heldBack: () => boolean, onSilence: () => void): void {
  response.socket?.setTimeout(0);
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => (heldBack() ? arm() : onSilence()), idleMs);
  };
  response.on('data', arm);
  response.on('resume', arm); // the silence counts afresh once this side reads again
  response.once('close', () => clearTimeout(timer));
  arm();
}
