import { ErrorCode } from './error-codes';

export interface FieldError {
  field: string;
  message: string;
}

/** An error the API answers with its contract code; the exception filter maps it to HTTP. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: FieldError[],
  ) {
    super(message);
    this.name = 'DomainError';
  }

  static invalid(field: string, message: string): DomainError {
    return new DomainError('invalid_request', `${field}: ${message}`, [{ field, message }]);
  }

  static notFound(what: string): DomainError {
    return new DomainError('not_found', `${what} not found`);
  }
}
