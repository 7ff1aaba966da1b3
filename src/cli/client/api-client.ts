import { createWriteStream, openAsBlob } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { JobView } from '../../contract/api-types';
import type { UsageSummary } from '../../contract/api-types';
import { ApiError, NetworkError } from './errors';

/** The API's own shapes (type-only imports: the CLI runs none of the server's code). */
export type Job = JobView;

export interface JobsPage {
  items: Job[];
  total: number;
  limit: number;
  offset: number;
}

export type { UsageSummary };

interface Envelope {
  error?: { code?: string; message?: string; request_id?: string };
}

/** The Backdrop API over Node's fetch: JSON calls, a streamed upload and a streamed download. */
export class BackdropClient {
  constructor(
    readonly baseUrl: string,
    private readonly key: string,
  ) {}

  /** `route` under the base URL, its path kept (https://host/backdrop + /v1/jobs: https://host/backdrop/v1/jobs; the path was dropped) */
  private url(route: string): string {
    return new URL(route.replace(/^\/+/, ''), this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`).toString();
  }

  /**
   * One request; a redirect is not followed (the Backdrop API answers none, and fetch would carry
   * the X-Api-Key header to wherever it points): it ends the command, naming where it pointed.
   */
  private async send(url: string, init: RequestInit): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(url, { ...init, redirect: 'manual' });
    } catch (error) {
      throw new NetworkError(new URL(url).origin, error);
    }
    if (response.status >= 300 && response.status < 400) throw redirected(url, response);
    if (response.ok) return response;
    const text = await response.text().catch(() => '');
    let envelope: Envelope = {};
    try {
      envelope = JSON.parse(text) as Envelope;
    } catch {
      // not the envelope (a proxy's page): described by its status below
    }
    const requestId = envelope.error?.request_id ?? response.headers.get('x-request-id');
    throw new ApiError(response.status, envelope.error?.code ?? '', envelope.error?.message ?? `${response.statusText || 'request failed'}`, requestId);
  }

  async json<T>(method: string, route: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { 'X-Api-Key': this.key, Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await this.send(this.url(route), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return jsonOf<T>(response);
  }

  /** POST /v1/uploads, the file streamed from disk. */
  async upload(file: string): Promise<{ video_url: string; size: number }> {
    const form = new FormData();
    form.append('file', await openAsBlob(file), path.basename(file));
    const response = await this.send(this.url('/v1/uploads'), { method: 'POST', headers: { 'X-Api-Key': this.key }, body: form });
    return jsonOf<{ video_url: string; size: number }>(response);
  }

  createJob(body: Record<string, unknown>): Promise<{ id: string; status: string; job?: Job }> {
    return this.json('POST', '/v1/jobs', body);
  }

  job(id: string): Promise<Job> {
    return this.json('GET', `/v1/jobs/${encodeURIComponent(id)}`);
  }

  jobs(query: { status?: string; limit?: number; offset?: number }): Promise<JobsPage> {
    const search = new URLSearchParams(Object.entries(query).filter(([, value]) => value !== undefined).map(([name, value]): [string, string] => [name, String(value)]));
    return this.json('GET', `/v1/jobs${search.size ? `?${search}` : ''}`);
  }

  usageSummary(days?: number): Promise<UsageSummary> {
    return this.json('GET', `/v1/usage/summary${days ? `?days=${days}` : ''}`);
  }

  /**
   * Streams a (signed) output URL to a file beside `destination`, renamed onto it once whole: a
   * download cut short left a partial file there, over what it held. Returns its size in bytes.
   */
  async download(url: string, destination: string): Promise<number> {
    // the key goes only to this server, never to another host (an S3 presigned URL)
    const sameServer = new URL(url).origin === new URL(this.url('/')).origin;
    const response = await this.send(url, { headers: sameServer ? { 'X-Api-Key': this.key } : {} });
    // the origin alone: the rest of a signed URL is its signature
    if (!response.body) throw new NetworkError(new URL(url).origin, new Error('empty response'));
    let bytes = 0;
    const body = Readable.fromWeb(response.body as unknown as WebReadableStream<Uint8Array>);
    body.on('data', (chunk: Buffer) => (bytes += chunk.length));
    const partial = `${destination}.part`;
    try {
      await pipeline(body, createWriteStream(partial));
      await rename(partial, destination);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
    return bytes;
  }
}

/** A successful answer's JSON body; anything else (a proxy's page) is an API error, not a crash. */
async function jsonOf<T>(response: Response): Promise<T> {
  const text = await response.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ApiError(response.status, '', 'the server answered with something other than JSON: is --url the Backdrop API?', response.headers.get('x-request-id'));
  }
}

/** A redirect, as the error that ends the command (the URL's origin only: a query may hold a signature) */
function redirected(url: string, response: Response): ApiError {
  const location = response.headers.get('location');
  const target = location ? new URL(location, url).origin : 'nowhere';
  return new ApiError(response.status, '', `the server redirected to ${target}; not followed, so that the API key goes nowhere else: use that address as --url`, response.headers.get('x-request-id'));
}
