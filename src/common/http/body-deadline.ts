import type { NextFunction, Request, Response } from 'express';
import { errorEnvelope } from './error-envelope';
import { requestIdOf } from './request-id';

/** bodies streamed to storage as they arrive, which the whole request's timeout covers: an upload, a signed PUT */
function isStreamedBody(req: Request): boolean {
  return Boolean(req.is('multipart/form-data')) || (req.method === 'PUT' && req.path.startsWith('/files/'));
}

const declaresBody = (req: Request): boolean => req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/**
 * A body read into memory (JSON, a form: at most JSON_BODY_LIMIT) must arrive within `timeoutMs`,
 * or the request is answered 408 and its connection closed. The whole request's timeout (30
 * minutes, for a 500 MB upload over a slow line) let a client trickle a body for that long, each
 * holding up to a megabyte before any key was checked.
 */
export function bodyDeadline(timeoutMs: number) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.complete || !declaresBody(req) || isStreamedBody(req)) return next();
    const timer = setTimeout(() => {
      if (req.complete || res.headersSent) return;
      const body = JSON.stringify(errorEnvelope('invalid_request', `The request body did not arrive within ${Math.round(timeoutMs / 1000)} s`, requestIdOf(req)));
      res.writeHead(408, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
      res.end(body, () => req.socket.destroy());
    }, timeoutMs);
    timer.unref();
    const settle = (): void => clearTimeout(timer);
    req.once('end', settle);
    req.once('close', settle);
    res.once('close', settle);
    next();
  };
}
