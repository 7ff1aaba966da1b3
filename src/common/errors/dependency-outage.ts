/**
 * Whether an error says that a dependency (Postgres, Redis, object storage) could not be reached or
 * went away, or that its disk failed or filled, not that the request or the code was wrong. The
 * contract answers those 503 `unavailable`, which a client retries, where a bug is a 500. Errors are
 * read by their shape (Node's system error codes, Postgres's SQLSTATE, the drivers' messages),
 * through `cause` and TypeORM's `driverError`, so that this module imports no driver.
 */
const SOCKET_CODES = ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE'];
/** a disk that fails, is full or read-only, or a process out of file handles */
const STORAGE_CODES = ['EIO', 'ENOSPC', 'EDQUOT', 'EROFS', 'EMFILE', 'ENFILE'];
const OUTAGE_CODES = new Set([...SOCKET_CODES, ...STORAGE_CODES]);

/**
 * SQLSTATE class 08 (connection exception), a server shutting down or starting (57P01-57P03), its
 * disk full (53100), out of memory (53200), too many connections (53300)
 */
const POSTGRES_OUTAGE_STATE = /^(08[0-9A-Z]{3}|57P0[1-3]|53[123]00)$/;

/** node-postgres's words for a connection lost or never made, and ioredis's for a closed connection */
const OUTAGE_MESSAGES = [/^Connection terminated/, /^timeout exceeded when trying to connect/, /^Connection is closed\.?$/, /is not queryable/];

/** how deep the chain of causes is followed: a cycle ends there */
const MAX_CAUSES = 5;

interface ErrorShape {
  code?: unknown;
  name?: unknown;
  message?: unknown;
  cause?: unknown;
  driverError?: unknown;
  errors?: unknown;
}

export function isDependencyOutage(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > MAX_CAUSES) return false;
  const { code, name, message, cause, driverError, errors } = error as ErrorShape;
  if (typeof code === 'string' && (OUTAGE_CODES.has(code) || POSTGRES_OUTAGE_STATE.test(code))) return true;
  if (name === 'MaxRetriesPerRequestError') return true;
  if (typeof message === 'string' && OUTAGE_MESSAGES.some((pattern) => pattern.test(message))) return true;
  // Node's AggregateError: each address tried (IPv4 and IPv6) refused
  if (Array.isArray(errors) && errors.length > 0 && errors.every((each) => isDependencyOutage(each, depth + 1))) return true;
  return isDependencyOutage(driverError, depth + 1) || isDependencyOutage(cause, depth + 1);
}
