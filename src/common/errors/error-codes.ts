/** Stable error codes of the API contract, and the HTTP status each one is answered with. */
export const ERROR_HTTP_STATUS = {
  invalid_request: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  insufficient_credits: 402,
  forbidden: 403,
  not_found: 404,
  invalid_state: 409,
  idempotency_in_progress: 409,
  gone: 410,
  file_too_large: 413,
  unsupported_media_type: 415,
  range_not_satisfiable: 416,
  idempotency_mismatch: 422,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_HTTP_STATUS;

/** Machine-readable reasons a job can fail with (`error_code` on the job). */
export const JOB_FAILURE_CODES = [
  'input_unreachable',
  'input_invalid',
  'input_too_long',
  'insufficient_credits',
  'worker_failed',
  'worker_timeout',
  'output_failed',
  'model_unavailable',
  'canceled',
] as const;
export type JobFailureCode = (typeof JOB_FAILURE_CODES)[number];
