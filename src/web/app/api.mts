/** The dashboard's client of the Backdrop API: the key from localStorage, JSON calls, uploads with progress. */
import type { JobsPage, JobView, Pricing, UploadView, UsageEvents, UsageSummary } from './types.mjs';

const KEY_STORAGE = 'backdrop.apiKey';

export function storedKey(): string {
  return localStorage.getItem(KEY_STORAGE) ?? '';
}

export function storeKey(key: string): void {
  if (key) localStorage.setItem(KEY_STORAGE, key);
  else localStorage.removeItem(KEY_STORAGE);
}

/** An API error as the envelope states it: the message is what the user reads. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | null = null,
    /** the server's Retry-After (a 429, a 503), in seconds */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }

  /** "Invalid API key (HTTP 401 invalid_api_key, request req_...)" */
  describe(): string {
    const origin = this.status ? `HTTP ${this.status}${this.code ? ` ${this.code}` : ''}` : this.code;
    return `${this.message} (${origin}${this.requestId ? `, request ${this.requestId}` : ''})`;
  }
}

export function errorText(error: unknown): string {
  if (error instanceof ApiError) return error.describe();
  return error instanceof Error ? error.message : String(error);
}

interface Envelope {
  error?: { code?: string; message?: string; request_id?: string };
}

/** The envelope's error, or a plain description when the body is not the envelope (a proxy's page). */
function errorOf(status: number, statusText: string, body: string, requestId: string | null, retryAfter: string | null = null): ApiError {
  const retryAfterSeconds = retryAfter && /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter) : null;
  try {
    const envelope = JSON.parse(body) as Envelope;
    if (envelope.error?.message) return new ApiError(status, envelope.error.code ?? '', envelope.error.message, envelope.error.request_id ?? requestId, retryAfterSeconds);
  } catch {
    // not JSON: described below
  }
  return new ApiError(status, '', `The server answered ${status} ${statusText || ''}`.trim(), requestId, retryAfterSeconds);
}

/** A fresh Idempotency-Key (crypto.randomUUID exists only in secure contexts: not on plain HTTP to a LAN address). */
export function newIdempotencyKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

function networkError(error: unknown): ApiError {
  return new ApiError(0, 'network_error', `Cannot reach the Backdrop server (${error instanceof Error ? error.message : String(error)})`);
}

async function call<T>(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json', ...extraHeaders };
  const key = storedKey();
  if (key) headers['X-Api-Key'] = key;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (error) {
    throw networkError(error);
  }
  const text = await response.text();
  if (!response.ok) throw errorOf(response.status, response.statusText, text, response.headers.get('X-Request-Id'), response.headers.get('Retry-After'));
  return JSON.parse(text) as T;
}

function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

export const api = {
  /** `idempotencyKey`: the same for every try of one submission, so a try whose answer was lost is not a second job (and charge) */
  createJob: (body: Record<string, unknown>, idempotencyKey: string) => call<{ id: string; status: string; job: JobView }>('POST', '/v1/jobs', body, { 'Idempotency-Key': idempotencyKey }),
  job: (id: string) => call<JobView>('GET', `/v1/jobs/${encodeURIComponent(id)}`),
  startJob: (id: string) => call<{ id: string; status: string; job: JobView }>('POST', `/v1/jobs/${encodeURIComponent(id)}/start`, {}),
  jobs: (params: { status?: string; limit: number; offset: number }) => call<JobsPage>('GET', `/v1/jobs${query(params)}`),
  usageSummary: (days: number) => call<UsageSummary>('GET', `/v1/usage/summary${query({ days })}`),
  usageEvents: (limit: number) => call<UsageEvents>('GET', `/v1/usage/events${query({ limit })}`),
  pricing: () => call<Pricing>('GET', '/api/pricing'),

  /** An upload of this server's, fetched with the key (a <video> cannot send headers); null for other URLs. */
  async inputVideo(videoUrl: string): Promise<Blob | null> {
    // by path: PUBLIC_BASE_URL may name this server by another host name than the one in the address bar
    const { pathname } = new URL(videoUrl, location.href);
    if (!/^\/v1\/uploads\/vid_\w+$/.test(pathname)) return null;
    const response = await fetch(pathname, { headers: { 'X-Api-Key': storedKey() } });
    return response.ok ? response.blob() : null;
  },

  /** POST /v1/uploads with XMLHttpRequest, whose upload events report the bytes really sent. */
  upload(file: File, onProgress: (sent: number, total: number) => void, signal?: AbortSignal): Promise<UploadView> {
    return new Promise((resolve, reject) => {
      const request = new XMLHttpRequest();
      request.open('POST', '/v1/uploads');
      request.setRequestHeader('X-Api-Key', storedKey());
      request.setRequestHeader('Accept', 'application/json');
      request.upload.addEventListener('progress', (event) => onProgress(event.loaded, event.lengthComputable ? event.total : file.size));
      request.addEventListener('load', () => {
        if (request.status < 200 || request.status >= 300) return reject(errorOf(request.status, request.statusText, request.responseText, request.getResponseHeader('X-Request-Id'), request.getResponseHeader('Retry-After')));
        try {
          resolve(JSON.parse(request.responseText) as UploadView);
        } catch {
          // a 2xx that is not the API's (a proxy's page): the upload would have stayed at 100% for good
          reject(new ApiError(request.status, '', `The server answered ${request.status} with something that is not the API's answer`));
        }
      });
      request.addEventListener('error', () => reject(networkError(new Error('the upload was interrupted'))));
      request.addEventListener('abort', () => reject(new ApiError(0, 'aborted', 'Upload canceled')));
      signal?.addEventListener('abort', () => request.abort());
      const form = new FormData();
      form.append('file', file, file.name);
      request.send(form);
    });
  },
};
