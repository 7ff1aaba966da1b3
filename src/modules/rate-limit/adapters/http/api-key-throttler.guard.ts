import { ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { InjectThrottlerOptions, InjectThrottlerStorage, ThrottlerGuard, ThrottlerModuleOptions, ThrottlerStorage } from '@nestjs/throttler';
import type { ThrottlerRequest } from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { DomainError } from '../../../../common/errors/domain-error';
import { fingerprintOf, hashApiKey } from '../../../../common/api-key-format';
import { JOB_START, JobStartPredicate } from '../../../../common/http/route-markers';

export const REQUESTS_THROTTLER = 'requests';
export const STARTS_THROTTLER = 'starts';

/** Header names per limit: the request limit uses the contract's X-RateLimit-*, the start limit X-RateLimit-Starts-*. */
const HEADER_PREFIX: Record<string, string> = { [REQUESTS_THROTTLER]: 'X-RateLimit', [STARTS_THROTTLER]: 'X-RateLimit-Starts' };

/**
 * @nestjs/throttler keyed by API key instead of IP. It runs as a global guard, before authentication,
 * so the tracker is the fingerprint of the presented X-Api-Key (the same fingerprint the key is stored
 * and logged under); a request without a key is tracked by its IP. The count lives in the shared store
 * (Redis or Postgres), so every API process sees the same numbers.
 *
 * - `requests`: every /v1/* request except /v1/admin/* (the admin API is not keyed by API key).
 * - `starts`: only requests to routes marked @CountsAsJobStart whose predicate holds.
 *
 * Headers: X-RateLimit-Limit/Remaining/Reset (Reset in epoch seconds), X-RateLimit-Starts-* on start
 * routes, Retry-After on a 429; the 429 body is the contract envelope with code `rate_limited`.
 * A store that cannot be reached lets the request through (logged): the limiter never takes the API down.
 */
@Injectable()
export class ApiKeyThrottlerGuard extends ThrottlerGuard {
  private readonly log = new Logger('RateLimit');

  constructor(@InjectThrottlerOptions() options: ThrottlerModuleOptions, @InjectThrottlerStorage() storage: ThrottlerStorage, reflector: Reflector) {
    super(options, storage, reflector);
  }

  protected override async getTracker(req: Record<string, unknown>): Promise<string> {
    const request = req as unknown as Request;
    const header = request.headers['x-api-key'];
    const presented = Array.isArray(header) ? header[0] : header;
    return presented ? `key:${fingerprintOf(hashApiKey(presented))}` : `ip:${request.ip ?? 'unknown'}`;
  }

  /** One counter per key and limit, across every route (the base class would count per handler). */
  protected override generateKey(_context: ExecutionContext, tracker: string, throttlerName: string): string {
    return `${throttlerName}:${tracker}`;
  }

  protected override async handleRequest({ context, limit, ttl, throttler, blockDuration, getTracker, generateKey }: ThrottlerRequest): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    const name = throttler.name ?? REQUESTS_THROTTLER;
    if (!this.applies(name, context, req)) return true;
    const key = generateKey(context, await getTracker(req, context), name);
    let record;
    try {
      record = await this.storageService.increment(key, ttl, limit, blockDuration, name);
    } catch (error) {
      this.log.warn(`rate-limit store unavailable, request let through: ${(error as Error).message}`);
      return true;
    }
    const prefix = HEADER_PREFIX[name] ?? `X-RateLimit-${name}`;
    res.setHeader(`${prefix}-Limit`, String(limit));
    res.setHeader(`${prefix}-Remaining`, String(Math.max(0, limit - record.totalHits)));
    res.setHeader(`${prefix}-Reset`, String(Math.ceil(Date.now() / 1000) + record.timeToExpire));
    if (record.isBlocked) {
      res.setHeader('Retry-After', String(record.timeToBlockExpire));
      const what = name === STARTS_THROTTLER ? `${limit} job starts` : `${limit} requests`;
      throw new DomainError('rate_limited', `Rate limit exceeded: ${what} per ${Math.round(ttl / 1000)} s for this API key; retry after ${record.timeToBlockExpire} s`);
    }
    return true;
  }

  private applies(name: string, context: ExecutionContext, req: Request): boolean {
    if (name === STARTS_THROTTLER) {
      const when = this.reflector.get<JobStartPredicate | undefined>(JOB_START, context.getHandler());
      return Boolean(when?.(req));
    }
    const path = req.path;
    return path.startsWith('/v1/') && !path.startsWith('/v1/admin/');
  }
}
