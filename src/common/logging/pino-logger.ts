import pino, { DestinationStream, Logger } from 'pino';

/** Paths pino removes from any object it is given, should one ever carry request headers. */
const REDACTED_PATHS = ['headers["x-api-key"]', 'headers["x-admin-token"]', 'headers.authorization', 'headers.cookie', '*.headers["x-api-key"]', '*.headers["x-admin-token"]', '*.headers.authorization', '*.headers.cookie'];

/** The process's structured JSON logger: one line per event, ISO time, level names, `LOG_LEVEL` honoured. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'backdrop', pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    },
    destination,
  );
}
