import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import * as http from 'node:http';
import * as https from 'node:https';
import { isIP, LookupFunction } from 'node:net';
import { pipeline, Readable, Transform } from 'node:stream';
import { AddressPolicy } from './address-policy';

export class OutboundRequestRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutboundRequestRefused';
  }
}

export class OutboundRequestFailed extends Error {
  constructor(message: string, readonly status?: number) {
    super(message);
    this.name = 'OutboundRequestFailed';
  }
}

export interface FetchOptions {
  maxBytes: number;
  timeoutMs?: number;
  maxRedirects?: number;
}

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
 * The one client for everything the server fetches on a user's behalf. Every address is checked at
 * connect time (a lookup hook), so a DNS answer that changes between check and connect cannot pass;
 * redirects are followed by hand with the same check; time and size are capped.
 */
export class OutboundHttpClient {
  constructor(private readonly policy: AddressPolicy) {}

  /** Refuses a URL whose literal address or DNS answer is not public (used at create time). */
  async assertAllowed(raw: string): Promise<URL> {
    const url = parseOutboundUrl(raw);
    const host = hostOf(url);
    if (this.policy.isHostAllowListed(host)) return url;
    const addresses = isIP(host) ? [host] : await this.resolve(host);
    const refused = addresses.find((address) => !this.policy.isAddressAllowed(address));
    if (refused) throw new OutboundRequestRefused(`the address ${refused} of ${host} is not a public address`);
    return url;
  }

  /** GETs `raw`, returning the body as a stream that errors past `maxBytes`. */
  async fetchStream(raw: string, options: FetchOptions): Promise<{ body: Readable; contentType: string | undefined }> {
    let url = parseOutboundUrl(raw);
    for (let hop = 0; hop <= (options.maxRedirects ?? 3); hop += 1) {
      const response = await this.request(url, options.timeoutMs ?? 30_000);
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400 && response.headers.location) {
        response.resume();
        url = parseOutboundUrl(new URL(response.headers.location, url).toString());
        continue;
      }
      if (status < 200 || status >= 300) {
        response.resume();
        throw new OutboundRequestFailed(`the server answered HTTP ${status}`, status);
      }
      const declared = Number(response.headers['content-length'] ?? 0);
      if (declared > options.maxBytes) {
        response.destroy();
        throw new OutboundRequestFailed(`the response is larger than ${options.maxBytes} bytes`);
      }
      const body = byteCap(options.maxBytes);
      pipeline(response, body, () => undefined);
      return { body, contentType: response.headers['content-type'] };
    }
    throw new OutboundRequestFailed('too many redirects');
  }

  /**
   * POSTs a body and reports the status without following redirects (webhooks: a 3xx is a failure).
   * The response body is drained and discarded, reading at most `maxResponseBytes`.
   */
  async post(raw: string, body: string, headers: Record<string, string>, options: { timeoutMs: number }): Promise<{ status: number; retryAfterSeconds: number | null }> {
    const url = parseOutboundUrl(raw);
    const response = await this.request(url, options.timeoutMs, { method: 'POST', body, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers } });
    response.resume();
    const retryAfter = Number(response.headers['retry-after']);
    return { status: response.statusCode ?? 0, retryAfterSeconds: Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : null };
  }

  private request(url: URL, timeoutMs: number, send?: { method: string; body: string; headers: Record<string, string> }): Promise<http.IncomingMessage> {
    const host = hostOf(url);
    if (isIP(host) && !this.policy.isAddressAllowed(host) && !this.policy.isHostAllowListed(host)) {
      return Promise.reject(new OutboundRequestRefused(`the address ${host} is not a public address`));
    }
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = transport.request(
        url,
        { method: send?.method ?? 'GET', lookup: this.guardedLookup(host), timeout: timeoutMs, headers: { 'user-agent': 'Backdrop/1.0', ...send?.headers } },
        resolve,
      );
      req.on('timeout', () => req.destroy(new OutboundRequestFailed(`no answer within ${timeoutMs} ms`)));
      req.on('error', (error) => reject(error instanceof OutboundRequestRefused || error instanceof OutboundRequestFailed ? error : new OutboundRequestFailed(error.message)));
      req.end(send?.body);
    });
  }

  private guardedLookup(host: string): LookupFunction {
    return (hostname, options, callback) => {
      dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
        if (error) return callback(error, '', 0);
        const list = addresses as unknown as LookupAddress[];
        const allowListed = this.policy.isHostAllowListed(host);
        const refused = list.find((entry) => !allowListed && !this.policy.isAddressAllowed(entry.address));
        if (refused) return callback(new OutboundRequestRefused(`the address ${refused.address} of ${hostname} is not a public address`), '', 0);
        if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
        callback(null, list[0].address, list[0].family);
      });
    };
  }

  private resolve(host: string): Promise<string[]> {
    return new Promise((resolve, reject) => {
      dnsLookup(host, { all: true }, (error, addresses) => {
        if (error) reject(new OutboundRequestRefused(`the host ${host} does not resolve`));
        else resolve(addresses.map((entry) => entry.address));
      });
    });
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
