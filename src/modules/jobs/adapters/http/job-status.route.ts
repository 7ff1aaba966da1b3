import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AuthenticatedKey } from '../../../../common/http/api-key-auth';
import { JobPresenter } from '../../application/job.presenter';
import { JobsService } from '../../application/jobs.service';

/** What the route needs of the rest of the app, in the order Nest would apply it. */
export interface JobStatusRouteSteps {
  /** the global rate-limit guard's request limit (headers set; throws `rate_limited`) */
  limit(req: Request, res: Response): Promise<void>;
  /** ApiKeyGuard's authentication (sets req.apiKey; throws `missing_api_key` / `invalid_api_key`) */
  authenticate(req: Request): Promise<AuthenticatedKey>;
  /** the global exception filter: anything thrown, as the contract's error envelope */
  fail(error: unknown, req: Request, res: Response): void;
}

/**
 * GET /v1/jobs/{id}, the request clients poll, as a plain Express handler mounted ahead of Nest's
 * router (bench:api measures it against a bare node:http server). It applies what Nest applies to
 * JobsController.get, in the same order and through the same objects: the rate-limit guard, the
 * API-key guard, the same use case and presenter, the same exception filter; the interceptors and
 * pipes of that route have nothing to do for it (no idempotency, no body, no job in a `job` field),
 * so the guard, interceptor and observable chains Nest builds per request are skipped, not replaced.
 * The controller keeps the route: it documents it in OpenAPI and serves apps built without this.
 */
export function jobStatusRoute(jobs: JobsService, presenter: JobPresenter, steps: JobStatusRouteSteps): RequestHandler {
  const serve = async (req: Request, res: Response): Promise<void> => {
    await steps.limit(req, res);
    const key = await steps.authenticate(req);
    const body = JSON.stringify(await presenter.status(await jobs.get(key.id, String(req.params.id))));
    // what Express's res.json writes (ETags are off app-wide)
    res.statusCode = 200;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
  };
  return (req: Request, res: Response, _next: NextFunction): void => {
    serve(req, res).catch((error: unknown) => steps.fail(error, req, res));
  };
}
