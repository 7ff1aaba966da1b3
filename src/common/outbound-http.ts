import type { Readable } from 'node:stream';

/** The URL may not be fetched: not http(s), or an address that is not public (SSRF guard). */
export class OutboundRequestRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutboundRequestRefused';
  }
}

/** The fetch failed: unreachable, timed out, an error status, or a body past its size cap. */
export class OutboundRequestFailed extends Error {
  constructor(message: string, readonly status?: number) {
    super(message);
    this.name = 'OutboundRequestFailed';
  }
}

export interface FetchOptions {
  /** The body may not be larger; a larger declared Content-Length fails before reading, a longer stream fails once past it. */
  maxBytes: number;
  /**
   * Idle timeout: the longest wait for the connection to send anything (headers or the next body
   * bytes), and for each answer's headers to be whole. Default 30 s.
   */
  timeoutMs?: number;
  /**
   * The whole fetch (every redirect, the headers and the body) ends within this, or fails: a server
   * that keeps sending a byte now and then never lets the idle timeout fire. Default: no limit.
   */
  deadlineMs?: number;
  /** Stops the fetch, the body's reading included (the job was canceled, its worker is stopping). */
  signal?: AbortSignal;
  /** Redirects to follow, each checked like the first URL; never more than MAX_REDIRECTS. */
  maxRedirects?: number;
}

/**
 * The port through which use cases reach users' URLs (inputs, background images, webhooks). Its
 * adapter is the SSRF-guarded OutboundHttpClient (src/infrastructure/net); tests give an in-memory one.
 */
export abstract class OutboundHttp {
  /** Refuses a URL whose literal address or DNS answer is not public (used at create time). */
  abstract assertAllowed(raw: string): Promise<URL>;
  /** GETs `raw`; the body errors (OutboundRequestFailed) past `maxBytes` or when the server stalls. */
  abstract fetchStream(raw: string, options: FetchOptions): Promise<{ body: Readable; contentType: string | undefined }>;
  /** POSTs a JSON body without following redirects; the answer's headers must be whole within `timeoutMs`. */
  abstract post(raw: string, body: string, headers: Record<string, string>, options: { timeoutMs: number }): Promise<{ status: number; retryAfterSeconds: number | null }>;
}
