import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import express, { Express, json, NextFunction, Request, RequestHandler, Response, urlencoded } from 'express';
import helmet from 'helmet';
import { IncomingMessage, Server, ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { DestinationStream, Logger } from 'pino';
import { AppModule, AppModuleOptions } from './app.module';
import { DomainError } from './common/errors/domain-error';
import { AllExceptionsFilter } from './common/http/all-exceptions.filter';
import { bodyDeadline } from './common/http/body-deadline';
import { errorEnvelope } from './common/http/error-envelope';
import { withErrorResponses } from './common/http/openapi-errors';
import { withAnswerSchemas } from './common/http/openapi-schemas';
import { accessLogMiddleware } from './common/logging/access-log.middleware';
import { createLogger } from './common/logging/pino-logger';
import { PinoNestLogger } from './common/logging/pino-nest-logger';
import { requestIdMiddleware } from './common/http/request-id';
import { createValidationPipe } from './common/http/validation';
import { newRequestId } from './common/ids';
import { continueWhenBodyIsRead } from './common/http/expect-continue';
import { requireOneHost } from './common/http/host-header';
import { APP_CONFIG, AppConfig, secretsInConfig } from './config/app-config';
import { UsageRecorder } from './modules/usage/application/usage-recorder';
import { MetricsService } from './modules/metrics/metrics.service';
import { httpMetricsMiddleware } from './modules/metrics/http-metrics.middleware';
import { usageMiddleware } from './modules/usage/adapters/http/usage-tracking';
import { ApiKeyGuard } from './common/http/api-key-auth';
import { jobStatusRoute } from './modules/jobs/adapters/http/job-status.route';
import { JobPresenter } from './modules/jobs/application/job.presenter';
import { JobsService } from './modules/jobs/application/jobs.service';
import { RateLimitGuard } from './modules/rate-limit/adapters/http/rate-limit.guard';

export function buildOpenApi(app: INestApplication) {
  const document = new DocumentBuilder()
    .setTitle('Backdrop API')
    .setDescription('Remove or replace the background of videos: upload, create a job, poll or receive webhooks, download.')
    .setVersion('1.0')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-Api-Key' }, 'apiKey')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-Admin-Token' }, 'adminToken')
    .build();
  return withAnswerSchemas(withErrorResponses(SwaggerModule.createDocument(app, document)));
}

/**
 * The Express app every Backdrop HTTP app is built on. Its routes match their case, as the job-status
 * lane does (/V1/jobs would otherwise be served past the per-key limit and the idempotency
 * fingerprint, which read the path as sent). Express takes the setting when its router is made,
 * before Nest registers anything.
 */
export function backdropHttpAdapter(): ExpressAdapter {
  const instance = express();
  instance.set('case sensitive routing', true);
  return new ExpressAdapter(instance);
}

/** The API's answers are stored by no browser or proxy: they hold signed URLs, webhook secrets and new keys, and job states that change. */
const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'no-store');
  next();
};

/** Response headers every client may read cross-origin (CORS): a ranged download's too */
const EXPOSED_HEADERS = ['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-RateLimit-Starts-Limit', 'X-RateLimit-Starts-Remaining', 'X-RateLimit-Starts-Reset', 'Retry-After', 'Idempotent-Replayed', 'Content-Range', 'Content-Disposition', 'Accept-Ranges', 'ETag', 'Last-Modified'];

/**
 * Security headers: helmet's defaults, except that outputs and uploads may be embedded by other
 * origins (they are reached through signed URLs), and that the policy does not upgrade requests to
 * HTTPS: a service run on a LAN address over plain HTTP had its /docs fetch their scripts from
 * https:// and show a blank page (the dashboard's own policy never upgraded).
 */
function securityHeaders(): RequestHandler {
  return helmet({ crossOriginResourcePolicy: { policy: 'cross-origin' }, contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } });
}

/** CORS for the origins in CORS_ORIGINS (none by default). */
function configureCors(app: NestExpressApplication, corsOrigins: readonly string[]): void {
  if (corsOrigins.length === 0) return;
  app.enableCors({
    origin: corsOrigins.includes('*') ? '*' : [...corsOrigins],
    methods: ['GET', 'HEAD', 'POST', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['Content-Type', 'X-Api-Key', 'X-Admin-Token', 'Idempotency-Key'],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  });
}

/**
 * The headers a header-only middleware (helmet: the same for every request) writes, read once, as
 * one that writes them without working them out again. Helmet is given a response that records.
 */
export function fixedHeaders(middleware: RequestHandler): RequestHandler {
  const headers: Array<[string, string]> = [];
  const removed: string[] = [];
  const recorder = {
    setHeader: (name: string, value: string) => headers.push([name, String(value)]),
    removeHeader: (name: string) => removed.push(name),
    getHeader: () => undefined,
  };
  let synchronous = false;
  void middleware({ headers: {}, method: 'GET', url: '/' } as Request, recorder as unknown as Response, () => (synchronous = true));
  if (!synchronous) throw new Error('fixedHeaders: the middleware did not answer at once');
  return (_req, res, next) => {
    for (const name of removed) res.removeHeader(name);
    for (const [name, value] of headers) res.setHeader(name, value);
    next();
  };
}

/**
 * Requests Node's HTTP parser refuses before Express sees them (URL or headers over 16 KB, malformed
 * request lines) are answered in the contract's envelope too, instead of Node's bare status line.
 */
function answerUnparsableRequests(server: Server, accessLog?: Logger): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || error.code === 'ECONNRESET') return void socket.destroy();
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const requestId = newRequestId();
    const message = status === 431 ? 'The URL or the headers are too large' : status === 408 ? 'The request took too long to arrive' : 'Malformed HTTP request';
    // the request's line and headers never arrived whole: its id, status and why are all there is to log
    accessLog?.info({ req_id: requestId, method: null, route: null, path: null, status, refused: error.code ?? 'parse error' }, 'request');
    const body = JSON.stringify(errorEnvelope('invalid_request', message, requestId));
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}

/**
 * Timeouts chosen rather than inherited: an idle keep-alive connection outlives the 60 s that proxies
 * and load balancers commonly keep theirs (Node's 5 s default made clients reusing a connection hit a
 * closed socket); headers must arrive a little after that; the whole request, body included, gets
 * long enough for a large upload over a slow line.
 */
export function applyServerTimeouts(server: Server, timeouts: AppConfig['http']): void {
  server.keepAliveTimeout = timeouts.keepAliveTimeoutMs;
  server.headersTimeout = timeouts.headersTimeoutMs;
  server.requestTimeout = timeouts.requestTimeoutMs;
}

/**
 * Closing the app waits for the requests in flight, but only for the grace: a client that stops reading
 * a download (or sending an upload) would otherwise hold the shutdown, and the worker's hand-back, for
 * as long as the request timeout.
 */
function cutConnectionsAfterGrace(app: NestExpressApplication, graceMs: number): void {
  const adapter = app.getHttpAdapter();
  const close = adapter.close.bind(adapter);
  adapter.close = async () => {
    const cut = setTimeout(() => (app.getHttpServer() as Server).closeAllConnections(), graceMs);
    cut.unref();
    try {
      return await close();
    } finally {
      clearTimeout(cut);
    }
  };
}

/**
 * How deep a request body may nest. The API's own bodies go four levels deep
 * (composition.foreground.offset.x); the validators walk a body recursively, and a body nested some
 * thousands of levels (a few KB of brackets) would overflow their stack: a 500 for a client's error.
 */
export const MAX_BODY_DEPTH = 16;

const NUL_REFUSED = 'must not contain the NUL character (\\u0000)';
/** read by code points, a surrogate pair is one astral character: only a lone surrogate is of category Cs */
const LONE_SURROGATE = /\p{Cs}/u;
const LONE_SURROGATE_REFUSED = 'must be well-formed Unicode (a lone surrogate such as \\ud800 is not)';

/** keys the validation pipe strips from every body, as a guard against prototype pollution: refused, rather than dropped without a word */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const RESERVED_KEY_REFUSED = 'is a reserved name (__proto__, constructor and prototype cannot be stored)';

/** Why Postgres could not store `text` (NUL, or a UTF-16 surrogate without its pair: jsonb and text refuse both), or null. */
function unstorable(text: string): string | null {
  if (text.includes('\u0000')) return NUL_REFUSED;
  return LONE_SURROGATE.test(text) ? LONE_SURROGATE_REFUSED : null;
}

/**
 * What keeps a body from the validators and the database, with its path: a string or key Postgres
 * cannot store (unstorable), a reserved key, or nesting past MAX_BODY_DEPTH; null if none.
 * Walked without recursion, in the body's order.
 */
function bodyProblem(body: unknown): { field: string; reason: string } | null {
  const pending: Array<{ value: unknown; at: string; depth: number }> = [{ value: body, at: '', depth: 0 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value, at, depth } = next;
    if (typeof value === 'string') {
      const reason = unstorable(value);
      if (reason) return { field: at || 'body', reason };
      continue;
    }
    if (!value || typeof value !== 'object') continue;
    if (depth === MAX_BODY_DEPTH) return { field: at || 'body', reason: `must not be nested more than ${MAX_BODY_DEPTH} levels deep` };
    const entries = Object.entries(value);
    for (const [key] of entries) {
      const reason = RESERVED_KEYS.has(key) && !Array.isArray(value) ? RESERVED_KEY_REFUSED : unstorable(key);
      if (reason) return { field: pathOf(value, at, key), reason };
    }
    for (let i = entries.length - 1; i >= 0; i--) pending.push({ value: entries[i][1], at: pathOf(value, at, entries[i][0]), depth: depth + 1 });
  }
  return null;
}

const pathOf = (container: object, at: string, key: string): string => (Array.isArray(container) ? `${at}[${key}]` : at ? `${at}.${key}` : key);

/** A body with a string Postgres cannot store anywhere, or nested too deep, is a 400 naming the field, not a database error or a 500. */
function refuseUnfitBodies(req: Request, _res: Response, next: NextFunction): void {
  if (Array.isArray(req.body)) return next(new DomainError('invalid_request', 'The body must be a JSON object'));
  const problem = bodyProblem(req.body);
  next(problem ? DomainError.invalid(problem.field, problem.reason) : undefined);
}

/** what a /v1 body must be: JSON everywhere but the upload, whose multipart parser answers for itself */
const JSON_TYPES = ['application/json', 'application/*+json'];
const UPLOAD_PATH = /^\/uploads\/?$/;
const METHODS_WITH_BODIES = new Set(['POST', 'PUT', 'PATCH']);

/** on /v1, a body that says no type is read as JSON, the only type the API takes (elsewhere the storage's signed PUTs take raw bytes) */
const declaresNoType = (req: IncomingMessage): boolean => req.headers['content-type'] === undefined;

/**
 * A /v1 body declared as something other than JSON is a 415. The parsers leave such a body unread,
 * and the request was served as if it had none: a start sent as text/plain or as a form ran the
 * draft's settings, not its own.
 */
function refuseBodiesNotJson(req: Request, _res: Response, next: NextFunction): void {
  if (!METHODS_WITH_BODIES.has(req.method) || !carriesBody(req) || UPLOAD_PATH.test(req.path) || declaresNoType(req) || req.is(JSON_TYPES)) return next();
  next(new DomainError('unsupported_media_type', `The body must be JSON: send it with Content-Type: application/json (it came as ${req.headers['content-type']})`));
}

/**
 * A parser for the methods whose bodies mean something. A body on a GET or a DELETE means nothing
 * (RFC 9110 section 9.3.1) and is left unread: a health probe or a poll that sent one that was not
 * JSON was refused 400 (malformed JSON).
 */
const onlyWithBodies =
  (parser: RequestHandler): RequestHandler =>
  (req, res, next) =>
    METHODS_WITH_BODIES.has(req.method) ? parser(req, res, next) : next();

/** the per-key request limit, applied before the body parsers, whose refusals are answered without the router */
function countedBeforeBody(limiter: RateLimitGuard): RequestHandler {
  return (req, res, next) => void limiter.limitBeforeBody(req, res).then(() => next(), next);
}

/** a body of at least one byte is announced, or one of unknown length comes */
function carriesBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return length === undefined ? req.headers['transfer-encoding'] !== undefined : Number(length) > 0;
}

/**
 * GET /v1/jobs/{id} ahead of the Express app (job-status.route.ts), through the app's own middleware,
 * guards, use case and filter; with CORS configured, cross-origin reads take the full chain. The
 * filter answers with Express's response methods: a failed request is made Express's first.
 */
function jobStatusLane(app: NestExpressApplication, exceptions: AllExceptionsFilter, middleware: RequestHandler[], cors: boolean): RequestHandler {
  const limiter = app.get(RateLimitGuard, { strict: false });
  const keys = app.get(ApiKeyGuard, { strict: false });
  const express = app.getHttpAdapter().getInstance() as Express;
  return jobStatusRoute(app.get(JobsService, { strict: false }), app.get(JobPresenter, { strict: false }), {
    middleware,
    limit: (req, res) => limiter.limitRequest(withClientAddress(express, req), res),
    authenticate: (req) => keys.authenticate(req),
    fail: (error, req, res) => {
      asExpress(express, req, res);
      exceptions.catch(error, new ExecutionContextHost([req, res]));
    },
    declines: cors ? (req) => req.headers.origin !== undefined : undefined,
  });
}

/**
 * The lane's request, not yet Express's, given Express's `ip` (the rate limits' client address): the
 * socket's, or with TRUST_PROXY the one the trusted proxies forwarded. Worked out when read.
 */
function withClientAddress(express: Express, req: Request): Request {
  const dressed = 'ip' in (req as object);
  if (!dressed) Object.defineProperty(req, 'ip', { get: () => (Object.create(express.request, { headers: { value: req.headers }, socket: { value: req.socket } }) as Request).ip, configurable: true });
  return req;
}

/** What Express's app.handle does to a request and its response before its router sees them. */
function asExpress(express: Express, req: Request, res: Response): void {
  Object.setPrototypeOf(req, express.request);
  Object.setPrototypeOf(res, express.response);
  req.res = res;
  res.req = req;
}

/** `handler` answers the server's requests first; what it passes on (`next`) goes to the listeners the server had (the Express app). */
function serveFirst(server: Server, handler: RequestHandler): void {
  const listeners = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    // a plain Node request and response, dressed by the lane with what its steps read
    void handler(req as Request, res as Response, () => {
      for (const listener of listeners) listener(req, res);
    });
  });
}

/**
 * Applies everything an HTTP app of Backdrop needs: request ids, the access log (when given a logger),
 * security headers and CORS, body limits, the error envelope, validation, docs.
 */
export function configureHttp(app: NestExpressApplication, jsonBodyLimit: string, options: { accessLog?: Logger; secrets?: readonly string[] } = {}): void {
  if (!app.getHttpAdapter().getRouteMatchingOptions?.().caseSensitive) throw new Error('configureHttp: build the app on backdropHttpAdapter()');
  const config = app.get<AppConfig>(APP_CONFIG, { strict: false });
  app.set('trust proxy', config.trustProxy);
  const accessLog = options.accessLog ? accessLogMiddleware(options.accessLog, options.secrets) : null;
  const security = securityHeaders();
  const metrics = httpMetricsMiddleware(app.get(MetricsService));
  const exceptions = new AllExceptionsFilter();
  // The usage recorder belongs to the API role; a worker serves only health and metrics.
  const usage = config.role !== 'worker' ? usageMiddleware(app.get(UsageRecorder)) : null;
  // The request clients poll, first: the same steps as below, without the router walking to them.
  if (usage) {
    const steps = [requestIdMiddleware, ...(accessLog ? [accessLog] : []), fixedHeaders(security), noStore, metrics, requireOneHost, usage];
    serveFirst(app.getHttpServer() as Server, jobStatusLane(app, exceptions, steps, config.env.CORS_ORIGINS.length > 0));
  }
  app.use(requestIdMiddleware);
  if (accessLog) app.use(accessLog);
  app.disable('x-powered-by');
  // JSON answers are not cached by clients (job state changes); Express would hash every body for an ETag.
  app.set('etag', false);
  answerUnparsableRequests(app.getHttpServer() as Server, options.accessLog);
  continueWhenBodyIsRead(app.getHttpServer() as Server);
  // requireOneHost answers in the envelope instead
  Object.assign(app.getHttpServer() as Server, { requireHostHeader: false });
  applyServerTimeouts(app.getHttpServer() as Server, config.http);
  cutConnectionsAfterGrace(app, config.http.shutdownGraceMs);
  app.use(security);
  app.use(['/v1', '/api'], noStore);
  configureCors(app, config.env.CORS_ORIGINS);
  app.set('query parser', 'simple');
  // observed from here: the limit's 429s and the parsers' refusals are requests too
  app.use(metrics);
  app.use(requireOneHost);
  if (usage) app.use(countedBeforeBody(app.get(RateLimitGuard, { strict: false })));
  app.use(bodyDeadline(config.env.HTTP_BODY_TIMEOUT_MS));
  app.use('/v1', refuseBodiesNotJson);
  app.use('/v1', onlyWithBodies(json({ limit: jsonBodyLimit, type: declaresNoType })));
  app.use(onlyWithBodies(json({ limit: jsonBodyLimit, type: JSON_TYPES })));
  app.use(onlyWithBodies(urlencoded({ extended: false, limit: jsonBodyLimit })));
  app.use(refuseUnfitBodies);
  // the original service's /api routes too: its clients upload and start paid jobs there
  if (usage) app.use(['/v1', '/api'], usage);
  app.useGlobalFilters(exceptions);
  app.useGlobalPipes(createValidationPipe());
  if (config.role === 'worker') return;
  const document = buildOpenApi(app);
  app.getHttpAdapter().getInstance().get('/openapi.json', (_req: Request, res: Response) => res.json(document));
  // the keys and the admin token typed into /docs are not kept in the browser's storage, which the dashboard and /files share
  SwaggerModule.setup('docs', app, document, { swaggerOptions: { persistAuthorization: false } });
}

/** Unknown routes answer 404 in the envelope (Nest's own 404 goes through the global filter). */
export async function createApp(options: AppModuleOptions, logging: { destination?: DestinationStream } = {}): Promise<NestExpressApplication> {
  const logger = createLogger(options.config.env.LOG_LEVEL, logging.destination);
  const secrets = [...secretsInConfig(options.config.env), options.secrets.generatedAdminToken, options.secrets.urlSigningSecret, ...options.secrets.previousUrlSigningSecrets.map(({ secret }) => secret)].filter((secret): secret is string => Boolean(secret));
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(options), backdropHttpAdapter(), { bodyParser: false, logger: new PinoNestLogger(logger, secrets) });
  configureHttp(app, options.config.env.JSON_BODY_LIMIT, { accessLog: logger, secrets });
  // With the embedded database the bootstrap owns the signals: the app closes first, then the database.
  if (!options.config.embeddedDatabase) app.enableShutdownHooks();
  return app;
}

