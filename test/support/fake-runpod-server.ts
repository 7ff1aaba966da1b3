import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import { RemoteStatus, RunRequest } from '../../src/common/worker-protocol/runpod-protocol';

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  at: number;
  body: unknown;
}

/** A scripted HTTP answer. */
export interface CannedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** How accepted jobs go: done after some polls (their output PUT where the task says), failed, or never done. */
export type JobScript =
  /** done at the `afterPolls`-th status poll, or `afterMs` after /run (then the webhook tells, if asked) */
  | { kind: 'complete'; afterPolls?: number; afterMs?: number; webhook?: boolean; output?: Record<string, unknown>; emptyOutput?: boolean }
  | { kind: 'fail'; afterPolls: number; error: string; errorCode?: string }
  /** CANCELLED at the `afterPolls`-th poll without a /cancel (another API process cancelled it, or the worker dropped it) */
  | { kind: 'cancelled'; afterPolls: number }
  | { kind: 'never' };

interface FakeJob {
  id: string;
  request: RunRequest;
  script: JobScript;
  polls: number;
  status: RemoteStatus;
}

/**
 * A scriptable RunPod-protocol server on loopback for the gateway's fault tests: canned answers for the
 * next calls of a route (500s, 429 with Retry-After...), a script for how accepted jobs go, a record
 * of every request (with its arrival time) for assertions, and stop() to make it disappear.
 */
export class FakeRunpodServer {
  readonly requests: RecordedRequest[] = [];
  readonly jobs = new Map<string, FakeJob>();
  /** canned answers for the next calls, per route ('POST /run', 'GET /status', 'GET /health', 'POST /cancel'), used in order */
  readonly canned = new Map<string, CannedAnswer[]>();
  script: JobScript = { kind: 'complete', afterPolls: 1 };
  /** HTTP statuses the API answered this worker's webhooks with */
  readonly webhookAnswers: number[] = [];
  private readonly sockets = new Set<import('node:net').Socket>();
  private readonly server: http.Server;
  private port = 0;

  private constructor(readonly apiKey: string) {
    this.server = http.createServer(
      (req, res) =>
        void this.handle(req, res).catch((error: Error) => {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: error.message }));
        }),
    );
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  static async start(apiKey: string): Promise<FakeRunpodServer> {
    const fake = new FakeRunpodServer(apiKey);
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    fake.port = (fake.server.address() as AddressInfo).port;
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The next `count` calls of `route` get `answer`. */
  answerNext(route: string, answer: CannedAnswer, count = 1): void {
    const list = this.canned.get(route) ?? [];
    for (let i = 0; i < count; i++) list.push(answer);
    this.canned.set(route, list);
  }

  to(route: string): RecordedRequest[] {
    const [method, prefix] = route.split(' ');
    return this.requests.filter((request) => request.method === method && request.path.startsWith(prefix));
  }

  /** Closes the server and every open connection: from now on, connection refused. */
  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    const text = Buffer.concat(chunks).toString('utf8');
    const path = req.url ?? '/';
    this.requests.push({ method: req.method ?? '', path, authorization: req.headers.authorization, at: Date.now(), body: text ? JSON.parse(text) : undefined });
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== this.apiKey) return answer(401, { error: 'unauthorized' });
    const [, action, id] = path.split('/');
    const route = `${req.method} /${action}`;
    const canned = this.canned.get(route)?.shift();
    if (canned) return answer(canned.status, canned.body ?? { error: `canned ${canned.status}` }, canned.headers);
    if (route === 'GET /health') return answer(200, { jobs: { completed: 0, failed: 0, inProgress: 0, inQueue: 0, retried: 0 }, workers: { idle: 1, running: 0 } });
    if (route === 'POST /run') {
      const request = JSON.parse(text) as RunRequest;
      const job: FakeJob = { id: randomUUID(), request, script: this.script, polls: 0, status: { id: '', status: 'IN_QUEUE' } };
      job.status.id = job.id;
      this.jobs.set(job.id, job);
      if (job.script.kind === 'complete' && job.script.afterMs !== undefined) setTimeout(() => void this.complete(job).catch(() => undefined), job.script.afterMs);
      return answer(200, { id: job.id, status: 'IN_QUEUE' });
    }
    const job = id ? this.jobs.get(id) : undefined;
    if (!job) return answer(404, { error: 'no such job' });
    if (route === 'POST /cancel') {
      job.status = { id: job.id, status: 'CANCELLED' };
      return answer(200, { id: job.id, status: 'CANCELLED' });
    }
    if (route === 'GET /status') {
      await this.advance(job);
      return answer(200, job.status);
    }
    answer(404, { error: 'no such route' });
  }

  /** One poll more: running with some progress, until the script ends the job. */
  private async advance(job: FakeJob): Promise<void> {
    if (job.status.status !== 'IN_QUEUE' && job.status.status !== 'IN_PROGRESS') return;
    job.polls += 1;
    const script = job.script;
    const due = script.kind === 'fail' || script.kind === 'cancelled' ? script.afterPolls : script.kind === 'complete' ? (script.afterPolls ?? Infinity) : Infinity;
    if (job.polls < due) {
      job.status = { id: job.id, status: 'IN_PROGRESS', progress: Math.min(90, job.polls * 10) };
      return;
    }
    if (script.kind === 'fail') {
      job.status = { id: job.id, status: 'FAILED', error: script.error, ...(script.errorCode ? { errorCode: script.errorCode } : {}) };
      return;
    }
    if (script.kind === 'cancelled') {
      job.status = { id: job.id, status: 'CANCELLED' };
      return;
    }
    await this.complete(job);
  }

  private async complete(job: FakeJob): Promise<void> {
    if (job.status.status !== 'IN_QUEUE' && job.status.status !== 'IN_PROGRESS') return;
    const script = job.script.kind === 'complete' ? job.script : undefined;
    await this.uploadOutput(job, script?.emptyOutput);
    job.status = { id: job.id, status: 'COMPLETED', output: { duration_seconds: 2, frames: 50, notes: ['fake worker'], ...script?.output } as RemoteStatus['output'] };
    if (job.script.kind === 'complete' && job.script.webhook && job.request.webhook) {
      this.webhookAnswers.push((await fetch(job.request.webhook, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(job.status) })).status);
    }
  }

  /** As a worker would: the input fetched from its signed URL, PUT back as the "output" (or nothing PUT, `empty`). */
  private async uploadOutput(job: FakeJob, empty = false): Promise<void> {
    const input = await fetch(job.request.input.input_url);
    if (!input.ok) throw new Error(`fake worker could not fetch the input: HTTP ${input.status}`);
    const bytes = empty ? Buffer.alloc(0) : Buffer.from(await input.arrayBuffer());
    const put = await fetch(job.request.input.output_upload_url, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: bytes });
    if (!put.ok) throw new Error(`fake worker could not upload the output: HTTP ${put.status}`);
  }
}

/** A loopback URL where nothing listens (a server started, then closed). */
export async function refusedUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
