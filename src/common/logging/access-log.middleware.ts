import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { redactSecrets } from './redact';

/**
 * One JSON line per HTTP request, written when the response is finished or the client went away:
 * request id, method, route pattern (`/v1/jobs/:id`), path without its query string, status,
 * duration, and the API key by fingerprint. Headers (X-Api-Key, X-Admin-Token) and query strings
 * (signed URLs) are never read, so they cannot be logged.
 */
export function accessLogMiddleware(parent: Logger) {
  // The entry is built here from the fields above, never from headers: the logger's redaction paths
  // (request headers) cannot match it, and walking them cost more than the rest of the line.
  const logger = parent.child({}, { redact: [] });
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    let done = false;
    const write = (): void => {
      if (done) return;
      done = true;
      const status = res.writableFinished ? res.statusCode : 499; // 499: the client closed the connection first
      const entry = {
        req_id: req.requestId,
        method: req.method,
        route: (req.route as { path?: string } | undefined)?.path ?? null,
        // an API key sent in the path by mistake is logged by its fingerprint
        path: redactSecrets(req.originalUrl.split('?')[0].slice(0, 512)),
        status,
        duration_ms: Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100,
        key_fingerprint: req.apiKey?.fingerprint ?? null,
        bytes_out: Number(res.getHeader('content-length') ?? 0) || undefined,
      };
      if (status === 503) logger.warn(entry, 'request'); // a dependency away: the outage, not a fault of the request (logged once by the exception filter)
      else if (status >= 500) logger.error(entry, 'request');
      else logger.info(entry, 'request');
    };
    res.once('finish', write);
    res.once('close', write);
    next();
  };
}
