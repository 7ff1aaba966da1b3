import { OutboundHttpClient, OutboundRequestFailed, OutboundRequestRefused, retryAfterSeconds } from '../../../../infrastructure/net/outbound-http.client';
import { parseRemoteStatus, RemoteHealth, RemoteStatus, RunRequest } from '../../../../common/worker-protocol/runpod-protocol';

/** A call to a worker that did not get a usable answer; `retryable` for 429, 5xx and network errors. */
export class WorkerCallFailed extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    /** seconds the worker asked to wait (Retry-After) */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = 'WorkerCallFailed';
  }
}

export interface WorkerApiOptions {
  apiKey: string;
  /** each attempt's timeout (connect, headers, body) */
  timeoutMs: number;
  /** attempts per call on retryable failures */
  attempts: number;
  /** first delay between attempts, doubled each time; a longer Retry-After wins, up to MAX_RETRY_DELAY_MS */
  baseDelayMs: number;
  /** waits between attempts; resolves early when `signal` aborts */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** The longest wait between two attempts, whatever Retry-After says. */
const MAX_RETRY_DELAY_MS = 60_000;
/** Status objects are small; anything larger is not one. */
const MAX_ANSWER_BYTES = 1024 * 1024;

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Delay before attempt `attempt + 1`: exponential with a little jitter, at least what Retry-After asks. */
export function retryDelayMs(attempt: number, baseDelayMs: number, retryAfterSecondsValue: number | null, random = Math.random): number {
  const backoff = baseDelayMs * 2 ** (attempt - 1) * (1 + 0.2 * random());
  return Math.min(MAX_RETRY_DELAY_MS, Math.max(backoff, (retryAfterSecondsValue ?? 0) * 1000));
}

/**
 * The RunPod-protocol calls to one worker base URL, through the SSRF-guarded outbound client: every
 * attempt is time-boxed, and 429 / 5xx / network failures are retried with exponential backoff
 * (honouring Retry-After). Other answers are final.
 */
export class WorkerApiClient {
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(
    private readonly client: OutboundHttpClient,
    private readonly options: WorkerApiOptions,
  ) {
    this.sleep = options.sleep ?? abortableSleep;
  }

  /** A busy worker (429) is not asked again here: the caller may try another (the error carries Retry-After). */
  async run(endpoint: string, request: RunRequest, signal?: AbortSignal): Promise<RemoteStatus> {
    const { status, json } = await this.call(endpoint, 'POST', '/run', JSON.stringify(request), signal, false);
    const accepted = parseRemoteStatus(json);
    if (status >= 300 || !accepted) throw new WorkerCallFailed(`POST /run was refused (HTTP ${status})`, false, status);
    return accepted;
  }

  /** The job's status object, or 'gone' when the worker does not know the job (any more). */
  async status(endpoint: string, id: string, signal?: AbortSignal): Promise<RemoteStatus | 'gone'> {
    const { status, json } = await this.call(endpoint, 'GET', `/status/${encodeURIComponent(id)}`, undefined, signal);
    if (status === 404) return 'gone';
    const parsed = parseRemoteStatus(json);
    if (status >= 300 || !parsed) throw new WorkerCallFailed(`GET /status answered HTTP ${status} without a status object`, false, status);
    return parsed;
  }

  async cancel(endpoint: string, id: string): Promise<void> {
    const { status } = await this.call(endpoint, 'POST', `/cancel/${encodeURIComponent(id)}`, '{}');
    if (status >= 300 && status !== 404) throw new WorkerCallFailed(`POST /cancel answered HTTP ${status}`, false, status);
  }

  /** Queues a FAILED or TIMED_OUT run again on its worker; the answer is its status ({id, status: 'IN_QUEUE'}). */
  async retry(endpoint: string, id: string, signal?: AbortSignal): Promise<RemoteStatus> {
    const { status, json } = await this.call(endpoint, 'POST', `/retry/${encodeURIComponent(id)}`, '{}', signal);
    const accepted = parseRemoteStatus(json);
    if (status >= 300 || !accepted) throw new WorkerCallFailed(`POST /retry answered HTTP ${status}`, false, status);
    return accepted;
  }

  /** One attempt: health checks report how things are now. */
  async health(endpoint: string): Promise<RemoteHealth> {
    const { status, json } = await this.attempt(endpoint, 'GET', '/health');
    const health = json as Partial<RemoteHealth> | null;
    if (status >= 300 || !health || typeof health.jobs !== 'object' || typeof health.workers !== 'object') {
      throw new WorkerCallFailed(`GET /health answered HTTP ${status}`, status === 429 || status >= 500, status);
    }
    return health as RemoteHealth;
  }

  private async call(endpoint: string, method: string, path: string, body?: string, signal?: AbortSignal, retryBusy = true): Promise<{ status: number; json: unknown }> {
    let lastError: WorkerCallFailed | undefined;
    for (let attempt = 1; attempt <= this.options.attempts; attempt += 1) {
      if (signal?.aborted) throw new WorkerCallFailed(`${method} ${path} was abandoned`, false);
      let retryAfter: number | null = null;
      try {
        const answer = await this.attempt(endpoint, method, path, body);
        if (answer.status !== 429 && answer.status < 500) return answer;
        retryAfter = answer.retryAfter;
        lastError = new WorkerCallFailed(`${method} ${path} answered HTTP ${answer.status}`, true, answer.status, retryAfter);
        if (answer.status === 429 && !retryBusy) throw lastError;
      } catch (error) {
        if (!(error instanceof WorkerCallFailed) || !error.retryable) throw error;
        lastError = error;
      }
      if (attempt < this.options.attempts) await this.sleep(retryDelayMs(attempt, this.options.baseDelayMs, retryAfter), signal);
    }
    throw lastError ?? new WorkerCallFailed(`${method} ${path} failed`, true);
  }

  private async attempt(endpoint: string, method: string, path: string, body?: string): Promise<{ status: number; json: unknown; retryAfter: number | null }> {
    try {
      const answer = await this.client.exchange(`${endpoint.replace(/\/+$/, '')}${path}`, {
        method,
        body,
        headers: { authorization: this.options.apiKey, accept: 'application/json' },
        timeoutMs: this.options.timeoutMs,
        maxBytes: MAX_ANSWER_BYTES,
      });
      const header = answer.headers['retry-after'];
      return { status: answer.status, json: parseJson(answer.body), retryAfter: retryAfterSeconds(Array.isArray(header) ? header[0] : header) };
    } catch (error) {
      if (error instanceof OutboundRequestRefused) throw new WorkerCallFailed(`${method} ${path} was refused by the outbound policy: ${error.message}`, false);
      if (error instanceof OutboundRequestFailed) throw new WorkerCallFailed(`${method} ${path} failed: ${error.message}`, true);
      throw error;
    }
  }
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
}
