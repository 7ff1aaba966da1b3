import * as http from 'node:http';
import { presentsSecret } from '../common/http/authorization-header';
import { RunRequest } from '../common/worker-protocol/runpod-protocol';
import { WorkerQueue } from './job-queue';
import { RunRequestInvalid, validateRunRequest } from './run-request';

const MAX_BODY_BYTES = 1024 * 1024;
/** what a 429 or a 503 asks the caller to wait */
const BUSY_RETRY_AFTER_SECONDS = 5;
/**
 * How long a request waits on the queue. A durable queue whose Redis or Postgres is away waits for it
 * without end; the caller (the API's gateway, 10 s a call by default) is told at once to come back.
 */
const QUEUE_ANSWER_MS = 5000;

class HttpProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** the queue's answer, or a 503 once it has taken QUEUE_ANSWER_MS (the answer, if it comes, is dropped) */
async function fromQueue<T>(queueAnswer: T | Promise<T>): Promise<T> {
  const answer = Promise.resolve(queueAnswer);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HttpProblem(503, 'the queue is unavailable', { 'retry-after': String(BUSY_RETRY_AFTER_SECONDS) })), QUEUE_ANSWER_MS);
  });
  answer.catch(() => undefined);
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}


function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), 'cache-control': 'no-store', ...headers });
  res.end(text);
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpProblem(413, `the body is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  } catch {
    throw new HttpProblem(400, 'the body is not JSON');
  }
}

/**
 * The RunPod-protocol HTTP server around a WorkerJobQueue: POST /run, GET /status/:id,
 * POST /cancel/:id, POST /retry/:id, GET /health, every one behind the API key. A plain Node
 * server, so a GPU box runs no web framework.
 */
export function createWorkerServer(queue: WorkerQueue, apiKey: string): http.Server {
  const server = http.createServer((req, res) => {
    handle(queue, apiKey, req, res).catch((error: Error) => {
      const status = error instanceof HttpProblem || error instanceof RunRequestInvalid ? error.status : 500;
      if (!res.headersSent) send(res, status, { error: status === 500 ? 'internal error' : error.message }, error instanceof HttpProblem ? error.headers : {});
      else res.destroy();
    });
  });
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  return server;
}

async function handle(queue: WorkerQueue, apiKey: string, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  if (!presentsSecret(req.headers.authorization, apiKey)) {
    req.resume();
    return send(res, 401, { error: 'missing or wrong authorization' });
  }
  const { pathname } = new URL(req.url ?? '/', 'http://worker');
  const [, action, id, extra] = pathname.split('/');
  const route = `${req.method} /${action ?? ''}${id !== undefined ? '/:id' : ''}`;
  if (extra !== undefined) throw new HttpProblem(404, 'no such route');
  switch (route) {
    case 'POST /run': {
      const request: RunRequest = validateRunRequest(await readJson(req));
      const accepted = await fromQueue(queue.submit(request));
      if (accepted === 'full') return send(res, 429, { error: 'the queue is full' }, { 'retry-after': String(BUSY_RETRY_AFTER_SECONDS) });
      return send(res, 200, { id: accepted.id, status: accepted.status });
    }
    case 'GET /status/:id': {
      const status = await fromQueue(queue.status(decodeURIComponent(id)));
      return status ? send(res, 200, status) : send(res, 404, { error: 'no such job (or its result expired)' });
    }
    case 'POST /cancel/:id': {
      req.resume();
      const status = await fromQueue(queue.cancel(decodeURIComponent(id)));
      return status ? send(res, 200, { id: status.id, status: status.status }) : send(res, 404, { error: 'no such job' });
    }
    case 'POST /retry/:id': {
      req.resume();
      const status = await fromQueue(queue.retry(decodeURIComponent(id)));
      if (status === null) return send(res, 404, { error: 'no such job' });
      if (status === 'refused') return send(res, 409, { error: 'only FAILED and TIMED_OUT jobs can be retried' });
      if (status === 'full') return send(res, 429, { error: 'the queue is full' }, { 'retry-after': String(BUSY_RETRY_AFTER_SECONDS) });
      return send(res, 200, { id: status.id, status: status.status });
    }
    case 'GET /health':
      return send(res, 200, await fromQueue(queue.health()));
    default:
      req.resume();
      throw new HttpProblem(404, 'no such route');
  }
}
