import type { LoggerService } from '@nestjs/common';
import type { Logger } from 'pino';
import { redactSecrets } from './redact';

/** Nest's start-up chatter (every module and route mapped) is debug, not info. */
const STARTUP_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** Nest's LoggerService over pino: `new Logger(context)` everywhere in the app writes structured JSON, secrets redacted. */
export class PinoNestLogger implements LoggerService {
  constructor(
    private readonly logger: Logger,
    private readonly secrets: readonly string[] = [],
  ) {}

  log(message: unknown, ...params: unknown[]): void {
    const context = this.contextOf(params);
    this.write(context && STARTUP_CONTEXTS.has(context) ? 'debug' : 'info', message, params);
  }

  /** Nest calls error(message, stack?, context?). */
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private contextOf(params: unknown[]): string | undefined {
    const last = params[params.length - 1];
    return typeof last === 'string' ? last : undefined;
  }

  private write(level: Level, message: unknown, params: unknown[]): void {
    if (!this.logger.isLevelEnabled(level)) return;
    const strings = params.filter((param): param is string => typeof param === 'string');
    const context = strings.length ? strings[strings.length - 1] : undefined;
    const stack = level === 'error' && strings.length > 1 ? strings[0] : undefined;
    const text = message instanceof Error ? (message.stack ?? message.message) : typeof message === 'string' ? message : JSON.stringify(message);
    this.logger[level]({ context, ...(stack ? { stack: redactSecrets(stack, this.secrets) } : {}) }, redactSecrets(text, this.secrets));
  }
}
