import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AuthenticatedKey } from '../../../../common/http/api-key-auth';
import { JobPresenter } from '../../application/job.presenter';
import { JobsService } from '../../application/jobs.service';

/** What the route needs of the rest of the app, in the order Express and Nest would apply it. */
export interface JobStatusRouteSteps {
  /**
   * The app's own middleware a GET of /v1 goes through before its route (request id, access log,
   * security headers, metrics, usage), run in that order; each calls its `next` at once.
   */
  middleware: readonly RequestHandler[];
  /** the global rate-limit guard's request limit (headers set; throws `rate_limited`) */
  limit(req: Request, res: Response): Promise<void>;
  /** ApiKeyGuard's authentication (sets req.apiKey; throws `missing_api_key` / `invalid_api_key`) */
  authenticate(req: Request): Promise<AuthenticatedKey>;
  /** the global exception filter: anything thrown, as the contract's error envelope */
  fail(error: unknown, req: Request, res: Response): void;
  /**
   * Requests the lane leaves to the full chain (Nest's controller serves them the same way),
   * e.g. a cross-origin request when CORS is configured.
   */
  declines?(req: Request): boolean;
}

const PREFIX = '/v1/jobs/';
/** What access log and metrics read as the route that served the request, as Express's router would set it. */
const ROUTE = Object.freeze({ path: '/v1/jobs/:id', methods: Object.freeze({ get: true }) });

/** The job id of a plain `GET /v1/jobs/{id}` (query string aside), or null for anything the lane leaves to the router. */
function jobIdOf(req: Request): string | null {
  if (req.method !== 'GET') return null;
  const url = req.url;
  if (!url.startsWith(PREFIX)) return null;
  const query = url.indexOf('?', PREFIX.length);
  const id = query === -1 ? url.slice(PREFIX.length) : url.slice(PREFIX.length, query);
  // a percent-encoded, empty or nested id, or a trailing slash: the router's decoding and matching decide
  if (id.length === 0 || id.includes('/') || id.includes('%')) return null;
  // a body (a GET may carry one) goes through the body parsers and their checks
  if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined) return null;
  // without a key, the rate limit counts the client's address, which Express works out (trust proxy)
  if (req.headers['x-api-key'] === undefined) return null;
  return id;
}

/**
 * GET /v1/jobs/{id}, the request clients poll, served before the Express app: Express does not dress
 * the request and the response up (re-prototyping both, with the router, cost ~100 µs a request), its
 * router does not walk the app's middleware stack, and Nest does not build its guard, interceptor and
 * observable chains per request. The lane sets the request fields the app's middleware read
 * (originalUrl, baseUrl, route, params, res.locals) as Express would; `steps.fail` gets a plain Node
 * request and response. It applies what those apply to JobsController.get, in the same order and
 * through the same objects: the app's middleware (steps.middleware), the rate-limit guard, the
 * API-key guard, the same use case and presenter, the same exception filter. Interceptors and pipes
 * of that route have nothing to do for it (no idempotency, no body, no job in a `job` field).
 * Anything else, or anything unusual about the request, goes on to the full chain (`next`). The
 * controller keeps the route: it documents it in OpenAPI and serves what the lane leaves.
 */
export function jobStatusRoute(jobs: JobsService, presenter: JobPresenter, steps: JobStatusRouteSteps): RequestHandler {
  const serve = async (req: Request, res: Response, id: string): Promise<void> => {
    await steps.limit(req, res);
    const key = await steps.authenticate(req);
    const body = JSON.stringify(await presenter.status(await jobs.get(key.id, id)));
    // what Express's res.json writes (ETags are off app-wide)
    res.statusCode = 200;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
  };
  const proceed = (error?: unknown): void => {
    if (error) throw error;
  };
  const middleware = [...steps.middleware];
  return (req: Request, res: Response, next: NextFunction): void => {
    const id = jobIdOf(req);
    if (id === null || steps.declines?.(req)) return next();
    req.originalUrl = req.url;
    req.baseUrl = '';
    req.params = { id };
    req.route = ROUTE;
    res.locals = Object.create(null) as Response['locals'];
    try {
      for (const step of middleware) void step(req, res, proceed);
    } catch (error) {
      return steps.fail(error, req, res);
    }
    serve(req, res, id).catch((error: unknown) => steps.fail(error, req, res));
  };
}
