import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import { noteErrorCode } from '../logging/access-log.middleware';
import type { Request, Response } from 'express';
import { isDependencyOutage } from '../errors/dependency-outage';
import { DomainError } from '../errors/domain-error';
import { ERROR_HTTP_STATUS, ErrorCode } from '../errors/error-codes';
import { errorEnvelope } from './error-envelope';
import { requestIdOf } from './request-id';

/** Nest/Express statuses that are not DomainErrors, mapped to contract codes. */
const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'invalid_request',
  401: 'invalid_api_key',
  403: 'forbidden',
  404: 'not_found',
  405: 'not_found',
  409: 'invalid_state',
  410: 'gone',
  413: 'file_too_large',
  415: 'unsupported_media_type',
  416: 'range_not_satisfiable',
  422: 'idempotency_mismatch',
  429: 'rate_limited',
  503: 'unavailable',
};

/** seconds a client is told to wait before retrying a 503 */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

interface ExpressBodyError {
  type?: string;
  status?: number;
  statusCode?: number;
  /** the raw body, on a JSON body the parser refused */
  body?: string;
  message?: string;
}

/**
 * What a client is told of a JSON body the parser refused (it reaches the filter as itself, or as
 * the BadRequestException Nest wraps it in), or null for any other error. The parser takes objects
 * and arrays only: a body of valid JSON such as `null` or `123` was answered "is not valid JSON".
 */
function unparsedBodyMessage(exception: unknown): string | null {
  const error = (exception instanceof HttpException ? exception.cause : exception) as ExpressBodyError | undefined;
  if (!error || typeof error !== 'object' || error.type !== 'entity.parse.failed') return null;
  try {
    JSON.parse(error.body ?? '');
    return 'The body must be a JSON object';
  } catch {
    return `Malformed JSON body (${error.message ?? 'not JSON'})`;
  }
}

type Described = { status: number; code: ErrorCode | string; message: string; details?: DomainError['details'] };

/**
 * A multipart body's refusals by its parser (a file under another field name, two files, no
 * boundary) are about its one field, `file`: they name it in `details`, as the contract has every
 * invalid_request do (they came without).
 */
function withFieldOfMultipart(described: Described, req: Request): Described {
  if (described.code !== 'invalid_request' || described.details || !req.is?.('multipart/form-data')) return described;
  return { ...described, details: [{ field: 'file', message: described.message }] };
}

/** Turns anything thrown into the contract's error envelope; no stack or internals in bodies. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    const requestId = requestIdOf(req);
    if (req.readableAborted) {
      // The client went away mid-request (an aborted upload): nobody to answer, and not a server error.
      if (!res.headersSent) res.status(400).json(errorEnvelope('invalid_request', 'The request was aborted by the client', requestId));
      return;
    }
    const { status, code, message, details } = withFieldOfMultipart(this.describe(exception), req);
    // a dependency away is the operator's to see once a request, not a bug's stack
    if (code === 'unavailable') this.logger.warn(`${req.method} ${req.path} ${requestId}: ${exception instanceof Error ? exception.message : String(exception)}`);
    else if (status >= 500) this.logger.error(`${req.method} ${req.path} ${requestId}: ${exception instanceof Error ? (exception.stack ?? exception.message) : String(exception)}`);
    if (res.headersSent) {
      res.end();
      return;
    }
    if (status === 503 && !res.getHeader('Retry-After')) res.setHeader('Retry-After', String(OUTAGE_RETRY_AFTER_SECONDS));
    noteErrorCode(res, code);
    res.status(status).json(errorEnvelope(code, message, requestId, details));
  }

  private describe(exception: unknown): Described {
    if (exception instanceof DomainError) {
      return { status: ERROR_HTTP_STATUS[exception.code], code: exception.code, message: exception.message, details: exception.details };
    }
    const unparsed = unparsedBodyMessage(exception);
    if (unparsed) return { status: 400, code: 'invalid_request', message: unparsed };
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const code = CODE_BY_STATUS[status] ?? (status >= 500 ? 'internal_error' : 'invalid_request');
      const message = status === 404 ? 'Not found' : status >= 500 ? 'Internal server error' : this.httpMessage(exception);
      return { status, code, message };
    }
    const bodyError = exception as ExpressBodyError;
    if (bodyError && typeof bodyError === 'object' && bodyError.type === 'entity.too.large') {
      return { status: 413, code: 'file_too_large', message: 'Request body too large' };
    }
    if (bodyError && typeof bodyError === 'object' && (bodyError.status ?? bodyError.statusCode) && Number(bodyError.status ?? bodyError.statusCode) < 500) {
      const status = Number(bodyError.status ?? bodyError.statusCode);
      return { status, code: CODE_BY_STATUS[status] ?? 'invalid_request', message: 'Bad request' };
    }
    if (isDependencyOutage(exception)) {
      return { status: HttpStatus.SERVICE_UNAVAILABLE, code: 'unavailable', message: 'A service Backdrop depends on is unavailable; try again shortly' };
    }
    return { status: HttpStatus.INTERNAL_SERVER_ERROR, code: 'internal_error', message: 'Internal server error' };
  }

  private httpMessage(exception: HttpException): string {
    const response = exception.getResponse();
    if (typeof response === 'string') return response;
    const message = (response as { message?: unknown }).message;
    return Array.isArray(message) ? message.join('; ') : typeof message === 'string' ? message : exception.message;
  }
}
