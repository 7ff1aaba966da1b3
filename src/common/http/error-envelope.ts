import { ErrorCode } from '../errors/error-codes';
import { FieldError } from '../errors/domain-error';

export interface ErrorEnvelope {
  success: false;
  error: { code: ErrorCode | string; message: string; request_id: string; details?: FieldError[] };
}

export function errorEnvelope(code: ErrorCode | string, message: string, requestId: string, details?: FieldError[]): ErrorEnvelope {
  return { success: false, error: { code, message, request_id: requestId, ...(details && details.length ? { details } : {}) } };
}
