/**
 * The worker's own HTTP transfers: the input from its signed GET URL, the output to its signed PUT
 * URL, the webhook. Plain http/https (the URLs come from the API that authenticated to this worker),
 * with connect and idle timeouts, a byte cap on downloads, no redirects, and files streamed both ways.
 */
import { createReadStream, createWriteStream, promises as fs } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export class TransferError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'TransferError';
  }
}

export interface TransferOptions {
  /** connect timeout, and the longest silence while the exchange goes on */
  timeoutMs: number;
  /** aborts the transfer (the job was canceled) */
  signal?: AbortSignal;
}

interface Outgoing {
  method: string;
  headers?: Record<string, string>;
  body?: Readable | string;
}

/** Sends a request (streaming a Readable body) and resolves with the response once its headers arrive. */
function exchange(rawUrl: string, outgoing: Outgoing, options: TransferOptions): Promise<http.IncomingMessage> {
  const url = new URL(rawUrl);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return Promise.reject(new TransferError('only http and https URLs are used'));
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = transport.request(url, { method: outgoing.method, headers: { 'user-agent': 'Backdrop-Worker/1.0', ...outgoing.headers } });
    const abort = (): void => void req.destroy(new TransferError('the transfer was canceled'));
    if (options.signal?.aborted) abort();
    options.signal?.addEventListener('abort', abort, { once: true });
    req.on('close', () => options.signal?.removeEventListener('abort', abort));
    const connectTimer = setTimeout(() => req.destroy(new TransferError(`could not connect within ${options.timeoutMs} ms`)), options.timeoutMs);
    req.on('socket', (socket) => {
      // a kept-alive socket is already connected: a listener on it would never fire and would pile up
      if (!socket.connecting) return clearTimeout(connectTimer);
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
    });
    req.setTimeout(options.timeoutMs, () => req.destroy(new TransferError(`no data for ${options.timeoutMs} ms`)));
    req.on('response', (response) => {
      clearTimeout(connectTimer);
      resolve(response);
    });
    req.on('error', (error) => {
      clearTimeout(connectTimer);
      reject(error instanceof TransferError ? error : new TransferError(error.message));
    });
    req.on('close', () => {
      clearTimeout(connectTimer);
      reject(new TransferError('the connection closed before an answer'));
    });
    if (outgoing.body instanceof Readable) {
      outgoing.body.on('error', (error) => req.destroy(new TransferError(`reading the body failed: ${error.message}`)));
      outgoing.body.pipe(req);
    } else {
      req.end(outgoing.body);
    }
  });
}

function byteCap(maxBytes: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > maxBytes) callback(new TransferError(`larger than ${maxBytes} bytes`));
      else callback(null, chunk);
    },
  });
}

/** GETs `url` into `target`; nothing is left at `target` when it fails. Returns the byte count. */
export async function downloadToFile(url: string, target: string, options: TransferOptions & { maxBytes: number }): Promise<number> {
  const response = await exchange(url, { method: 'GET', headers: { 'accept-encoding': 'identity' } }, options);
  const status = response.statusCode ?? 0;
  if (status < 200 || status >= 300) {
    response.resume();
    throw new TransferError(`answered HTTP ${status}`, status);
  }
  if (Number(response.headers['content-length'] ?? 0) > options.maxBytes) {
    response.destroy();
    throw new TransferError(`larger than ${options.maxBytes} bytes`);
  }
  try {
    await pipeline(response, byteCap(options.maxBytes), createWriteStream(target, { flags: 'wx' }));
  } catch (error) {
    await fs.rm(target, { force: true });
    throw error instanceof TransferError ? error : new TransferError((error as Error).message);
  }
  return (await fs.stat(target)).size;
}

/** PUTs the file at `source` to `url`, streamed, with its Content-Length (as presigned S3 URLs need). */
export async function uploadFile(url: string, source: string, options: TransferOptions): Promise<number> {
  const size = (await fs.stat(source)).size;
  const body = createReadStream(source);
  try {
    const response = await exchange(url, { method: 'PUT', headers: { 'content-type': 'application/octet-stream', 'content-length': String(size) }, body }, options);
    response.resume();
    const status = response.statusCode ?? 0;
    if (status < 200 || status >= 300) throw new TransferError(`answered HTTP ${status}`, status);
    return size;
  } finally {
    body.destroy(); // a refusal may come before the whole file was read
  }
}

/** POSTs JSON and returns the status; the answer's body is discarded. */
export async function postJson(url: string, body: unknown, options: TransferOptions): Promise<number> {
  const text = JSON.stringify(body);
  const response = await exchange(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) }, body: text }, options);
  response.resume();
  return response.statusCode ?? 0;
}
