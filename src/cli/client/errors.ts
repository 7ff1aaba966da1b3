/** Exit codes scripts can rely on (documented in `backdrop --help`). */
export const EXIT = {
  ok: 0,
  jobFailed: 1,
  usage: 2,
  api: 3,
  network: 4,
} as const;

/** An error that ends the CLI with a given exit code and a one-line message on stderr. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT.usage);
  }
}

/** The API's error envelope, as the server stated it. */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | null,
  ) {
    super(`${message} (HTTP ${status}${code ? ` ${code}` : ''}${requestId ? `, request ${requestId}` : ''})`, EXIT.api);
  }
}

export class NetworkError extends CliError {
  constructor(url: string, cause: unknown) {
    const reason = cause instanceof Error ? ((cause.cause as Error | undefined)?.message ?? cause.message) : String(cause);
    super(`Cannot reach ${url}: ${reason}`, EXIT.network);
  }
}
