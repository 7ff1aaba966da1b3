import { Readable } from 'node:stream';
import { FetchOptions, OutboundHttp, OutboundRequestFailed, OutboundRequestRefused } from './outbound-http';

const PRIVATE_HOST = /^(localhost|127\.|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|169\.254\.|\[?::1\]?$|0\.0\.0\.0)/;

/**
 * Outbound HTTP without a network: URLs answer what `serve` says (at once, so within any deadline);
 * private hosts are refused as the SSRF guard refuses them; an aborted signal stops a fetch; every
 * POST is kept (`posts`) and answered `postStatus` (and `postRetryAfterSeconds`), or left unanswered (`postFailure`).
 * test/contract/outbound-http.contract.spec.ts holds it to the real client's behaviour.
 */
export class InMemoryOutboundHttp extends OutboundHttp {
  private readonly bodies = new Map<string, Buffer>();
  readonly posts: Array<{ url: string; body: string; headers: Record<string, string> }> = [];
  postStatus = 200;
  /** what the POSTs' Retry-After says (seconds), null for none */
  postRetryAfterSeconds: number | null = null;
  /** set: every POST fails with this, unanswered (a receiver that times out or refuses connections) */
  postFailure: string | null = null;

  serve(url: string, body: Buffer | string): this {
    this.bodies.set(url, Buffer.from(body));
    return this;
  }

  async assertAllowed(raw: string): Promise<URL> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new OutboundRequestRefused('not a valid URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundRequestRefused(`the scheme ${url.protocol} is not allowed`);
    if (PRIVATE_HOST.test(url.hostname)) throw new OutboundRequestRefused(`the address of ${url.hostname} is not a public address`);
    return url;
  }

  async fetchStream(raw: string, options: FetchOptions): Promise<{ body: Readable; contentType: string | undefined }> {
    await this.assertAllowed(raw);
    if (options.signal?.aborted) throw new OutboundRequestFailed('the fetch was canceled');
    const body = this.bodies.get(raw);
    if (!body) throw new OutboundRequestFailed(`${raw} answered 404`, 404);
    if (body.length > options.maxBytes) throw new OutboundRequestFailed(`the body is larger than ${options.maxBytes} bytes`);
    return { body: Readable.from([body]), contentType: undefined };
  }

  async post(raw: string, body: string, headers: Record<string, string>): Promise<{ status: number; retryAfterSeconds: number | null }> {
    await this.assertAllowed(raw);
    this.posts.push({ url: raw, body, headers });
    if (this.postFailure !== null) throw new OutboundRequestFailed(this.postFailure);
    return { status: this.postStatus, retryAfterSeconds: this.postRetryAfterSeconds };
  }
}
