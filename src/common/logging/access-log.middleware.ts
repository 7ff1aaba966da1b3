import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { redactSecrets } from './redact';

const RESOURCE_ID = 'accessLogResourceId';
const ERROR_CODE = 'accessLogErrorCode';

/** the contract's error code an answer carried (`missing_api_key` and `invalid_api_key` are both a 401) */
export function noteErrorCode(res: Response, code: string): void {
  res.locals[ERROR_CODE] = code;
}

/** names the job a request made in its access line (a job's own routes name it by their `:id`) */
export function noteResource(res: Response, id: string): void {
  res.locals[RESOURCE_ID] = id;
}

/** an id a proxy or load balancer in front gave the request, when it is one (not text to forge lines with) */
const UPSTREAM_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/**
 * One JSON line per HTTP request, written when the response is finished or the client went away:
 * request id (and the id a proxy in front sent as X-Request-Id, as `upstream_req_id`), method, route
 * pattern (`/v1/jobs/:id`), path without its query string, status, duration, the API key by
 * fingerprint, the job the request made or named (`resource_id`) and the error code of an error
 * answer (`error_code`). No other header (X-Api-Key, X-Admin-Token) and no query string (signed URLs) is
 * read; `secrets` (the admin token, worker keys) are taken out of the path as from every line.
 */
export function accessLogMiddleware(parent: Logger, secrets: readonly string[] = []) {
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
      const upstream = req.headers['x-request-id'];
      const entry = {
        req_id: req.requestId,
        upstream_req_id: typeof upstream === 'string' && UPSTREAM_REQUEST_ID.test(upstream) ? redactSecrets(upstream, secrets) : undefined,
        method: req.method,
        route: (req.route as { path?: string } | undefined)?.path ?? null,
        // an API key sent in the path by mistake is logged by its fingerprint
        path: redactSecrets(req.originalUrl.split('?')[0].slice(0, 512), secrets),
        status,
        duration_ms: Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100,
        key_fingerprint: req.apiKey?.fingerprint ?? null,
        // the job (or upload) the request made or read: its worker's lines name it too
        resource_id: resourceIdOf(req, res, secrets),
        error_code: res.locals?.[ERROR_CODE] as string | undefined,
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

/** the id a job's route was given, as the path is logged: at most 64 characters, secrets taken out */
function resourceIdOf(req: Request, res: Response, secrets: readonly string[]): string | undefined {
  const id = (res.locals?.[RESOURCE_ID] as string | undefined) ?? (req.params as { id?: string } | undefined)?.id;
  return id === undefined ? undefined : redactSecrets(id.slice(0, 64), secrets);
}
