import { CanActivate, ExecutionContext, Inject, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { Clock } from '../../../../common/clock';
import { DomainError } from '../../../../common/errors/domain-error';
import { fingerprintOf, hashApiKey } from '../../../../common/api-key-format';
import { JOB_START, JobStartPredicate } from '../../../../common/http/route-markers';
import { outcomeOf, RateLimitOutcome } from '../../domain/sliding-window';
import { RateLimitStore } from '../../ports/rate-limit-store';

export interface RateLimits {
  /** requests per window on /v1/* (not /v1/admin/*) */
  requests: number;
  /** job starts per window, on routes marked @CountsAsJobStart whose predicate holds */
  starts: number;
  windowMs: number;
}

export const RATE_LIMITS = Symbol('RATE_LIMITS');

interface Limit {
  name: 'requests' | 'starts';
  limit: number;
  /** header prefix: the contract's X-RateLimit-* for requests, X-RateLimit-Starts-* for starts */
  header: string;
}

/**
 * Per-API-key limits (contract: Rate limits) as a global guard. It runs before authentication, so
 * the tracker is the fingerprint of the presented X-Api-Key (the same fingerprint the key is stored
 * and logged under); a request without a key is tracked by its IP. One store call per limit that
 * applies: one for most requests, two for a job start.
 *
 * Headers: X-RateLimit-Limit/Remaining/Reset (Reset in epoch seconds: when the current window ends),
 * X-RateLimit-Starts-* on start routes, Retry-After on a 429; the 429 body is the contract envelope
 * with code `rate_limited`. A store that cannot be reached lets the request through (logged): the
 * limiter never takes the API down.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly log = new Logger('RateLimit');
  private readonly requests: Limit;
  private readonly starts: Limit;
  /** each handler's job-start predicate, read once (metadata does not change) */
  private readonly startPredicates = new Map<object, JobStartPredicate | null>();

  constructor(
    private readonly store: RateLimitStore,
    @Inject(RATE_LIMITS) private readonly limits: RateLimits,
    private readonly reflector: Reflector,
    private readonly clock: Clock,
  ) {
    this.requests = { name: 'requests', limit: limits.requests, header: 'X-RateLimit' };
    this.starts = { name: 'starts', limit: limits.starts, header: 'X-RateLimit-Starts' };
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const path = req.path;
    const keyed = path.startsWith('/v1/') && !path.startsWith('/v1/admin/');
    const startsJob = Boolean(this.startPredicateOf(context.getHandler())?.(req));
    if (!keyed && !startsJob) return true;
    const res = context.switchToHttp().getResponse<Response>();
    const tracker = trackerOf(req);
    if (keyed) await this.apply(this.requests, tracker, res);
    if (startsJob) await this.apply(this.starts, tracker, res);
    return true;
  }

  /** What canActivate does for a keyed /v1 request that starts no job, for a route served outside Nest's router. */
  limitRequest(req: Request, res: Response): Promise<void> {
    return this.apply(this.requests, trackerOf(req), res);
  }

  private startPredicateOf(handler: object): JobStartPredicate | null {
    let predicate = this.startPredicates.get(handler);
    if (predicate === undefined) {
      predicate = this.reflector.get<JobStartPredicate | undefined>(JOB_START, handler as () => void) ?? null;
      this.startPredicates.set(handler, predicate);
    }
    return predicate;
  }

  private async apply(limit: Limit, tracker: string, res: Response): Promise<void> {
    let outcome: RateLimitOutcome;
    const now = this.clock.now().getTime();
    try {
      outcome = outcomeOf(await this.store.consume(`${limit.name}:${tracker}`, limit.limit, this.limits.windowMs, now), this.limits.windowMs, limit.limit);
    } catch (error) {
      this.log.warn(`rate-limit store unavailable, request let through: ${(error as Error).message}`);
      return;
    }
    res.setHeader(`${limit.header}-Limit`, String(limit.limit));
    res.setHeader(`${limit.header}-Remaining`, String(outcome.remaining));
    res.setHeader(`${limit.header}-Reset`, String(Math.ceil((now + outcome.resetMs) / 1000)));
    if (outcome.admitted) return;
    const retryAfter = Math.max(1, Math.ceil(outcome.retryAfterMs / 1000));
    res.setHeader('Retry-After', String(retryAfter));
    const what = limit.name === 'starts' ? `${limit.limit} job starts` : `${limit.limit} requests`;
    throw new DomainError('rate_limited', `Rate limit exceeded: ${what} per ${Math.round(this.limits.windowMs / 1000)} s for this API key; retry after ${retryAfter} s`);
  }
}

function trackerOf(req: Request): string {
  const header = req.headers['x-api-key'];
  const presented = Array.isArray(header) ? header[0] : header;
  return presented ? `key:${fingerprintOf(hashApiKey(presented))}` : `ip:${req.ip ?? 'unknown'}`;
}
