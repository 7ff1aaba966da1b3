import type { NextFunction, Request, Response } from 'express';
import { DomainError } from '../errors/domain-error';

/** how many Host headers the request sent, however they were spelt */
function hostHeaders(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) if (rawHeaders[index].toLowerCase() === 'host') count += 1;
  return count;
}

/**
 * An HTTP/1.1 request names exactly one Host (RFC 9112 section 3.2): one with none or several is
 * refused 400 in the contract's envelope. Node's own check (off: the server's requireHostHeader)
 * answered a missing Host with a bare 400, no body and no request id, and let two through.
 */
export function requireOneHost(req: Request, _res: Response, next: NextFunction): void {
  const hosts = hostHeaders(req.rawHeaders);
  if (hosts === 1 || (hosts === 0 && req.httpVersion === '1.0')) return next();
  next(new DomainError('invalid_request', hosts === 0 ? 'The Host header is missing: HTTP/1.1 requires it' : 'The Host header was sent more than once'));
}
