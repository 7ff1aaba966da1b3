import { CanActivate, ExecutionContext, Inject, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { Clock } from '../../../../common/clock';
import { RepeatedWarning } from '../../../../common/logging/repeated-warning';
import { DomainError } from '../../../../common/errors/domain-error';
import { hashApiKey } from '../../../../common/api-key-format';
import { ApiKeyAuthenticator } from '../../../../common/http/api-key-auth';
import { IDEMPOTENT, isMarkedStartedNothing, JOB_START, JobStartPredicate, refuseUnlessReplayed, REPLAYED_HEADER } from '../../../../common/http/route-markers';
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

/** marks a request the requests limit has counted ahead of the router (`limitBeforeBody`) */
const COUNTED_BEFORE_BODY = Symbol('counted before its body was read');

/** the original service's routes that take a key: the same work as their /v1 twins, counted with them */
const LEGACY_KEYED_PATH = /^\/api\/(?:(?:upload|process)\/?$|download\/)/;

/** the routes the requests limit counts: /v1/*, not /v1/admin/*, and the legacy keyed routes */
const isKeyedPath = (path: string): boolean => (path.startsWith('/v1/') && !path.startsWith('/v1/admin/')) || LEGACY_KEYED_PATH.test(path);

/** the addresses each process remembers as past the failures limit, at most */
const MAX_REFUSED_ADDRESSES = 10_000;

/**
 * Per-API-key limits (contract: Rate limits) as a global guard. It runs before authentication, so
 * the tracker is the hash of the presented X-Api-Key (as the key is stored); a request without a
 * key is tracked by its IP. One store call per limit that
 * applies: one for most requests, two for a job start.
 *
 * Headers: X-RateLimit-Limit/Remaining/Reset (Reset in epoch seconds: when the current window ends),
 * X-RateLimit-Starts-* on start routes, Retry-After on a 429; the 429 body is the contract envelope
 * with code `rate_limited`. A store that cannot be reached lets the request through (logged): the
 * limiter never takes the API down.
 *
 * A made-up key is a new tracker each time, and each costs a database lookup: requests refused for
 * their key (401) also count against their client's address (`failures`, as many as the request
 * limit), and an address past that is refused at once, before any lookup, until its window lets it
 * in again (remembered in each process: no store call either). Before, a client sending made-up keys
 * had no limit at all. A key that authenticates never counts there.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  /** the store away: one line at most every 30 s, not one a request (RepeatedWarning) */
  private readonly storeTrouble = new RepeatedWarning(new Logger('RateLimit'));
  private readonly requests: Limit;
  private readonly starts: Limit;
  /** each handler's job-start predicate, read once (metadata does not change) */
  private readonly startPredicates = new Map<object, JobStartPredicate | null>();

  /** addresses past the failures limit, and until when (ms): refused without a store call or a lookup */
  private readonly refusedUntil = new Map<string, number>();

  constructor(
    private readonly store: RateLimitStore,
    @Inject(RATE_LIMITS) private readonly limits: RateLimits,
    private readonly reflector: Reflector,
    private readonly clock: Clock,
    private readonly keys: ApiKeyAuthenticator,
  ) {
    this.requests = { name: 'requests', limit: limits.requests, header: 'X-RateLimit' };
    this.starts = { name: 'starts', limit: limits.starts, header: 'X-RateLimit-Starts' };
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const counted = COUNTED_BEFORE_BODY in req;
    const keyed = isKeyedPath(req.path) && !counted;
    const startsJob = Boolean(this.startPredicateOf(context.getHandler())?.(req));
    if (!keyed && !startsJob) return true;
    const res = context.switchToHttp().getResponse<Response>();
    const tracker = trackerOf(req);
    if (!counted) this.watchFailures(req, res);
    if (keyed) await this.apply(this.requests, tracker, res);
    if (startsJob) {
      const admittedAt = await this.applyToStart(req, res, context.getHandler(), tracker);
      // a start the route refuses (400, 402, 409...), one replayed under its Idempotency-Key, or one it marks (a job stored failed for credit) started nothing: its slot is given back
      if (admittedAt !== undefined) res.once('finish', () => void (startedNothing(res) && this.giveBack(this.starts, tracker, admittedAt)));
    }
    return true;
  }

  /**
   * The start limit. A start over it that carries an Idempotency-Key may repeat one already done,
   * whose answer is replayed without starting anything: its refusal is left to the idempotency
   * interceptor, which knows (refuseUnlessReplayed). Refused here, a client whose answer was lost
   * got 429 for its retry until the window let it start again.
   */
  private async applyToStart(req: Request, res: Response, handler: object, tracker: string): Promise<number | undefined> {
    try {
      return await this.apply(this.starts, tracker, res);
    } catch (error) {
      const mayBeReplay = req.headers['idempotency-key'] !== undefined && this.reflector.get<boolean>(IDEMPOTENT, handler as () => void);
      if (!(error instanceof DomainError) || error.code !== 'rate_limited' || !mayBeReplay) throw error;
      const retryAfter = String(res.getHeader('Retry-After'));
      res.removeHeader('Retry-After');
      refuseUnlessReplayed(req, { error, headers: { 'Retry-After': retryAfter } });
      return undefined;
    }
  }

  private async giveBack(limit: Limit, tracker: string, admittedAt: number): Promise<void> {
    try {
      await this.store.release(`${limit.name}:${tracker}`, this.limits.windowMs, admittedAt);
    } catch (error) {
      this.storeTrouble.warn(`rate-limit store unavailable, a refused ${limit.name} slot not given back: ${(error as Error).message}`);
    }
  }

  /** What canActivate does for a keyed /v1 request that starts no job, for a route served outside Nest's router. */
  async limitRequest(req: Request, res: Response): Promise<void> {
    this.watchFailures(req, res);
    await this.apply(this.requests, trackerOf(req), res);
  }

  /**
   * Counts a keyed /v1 request before its body is parsed (as Express middleware), so a request the
   * parsers refuse (malformed JSON, too large, not JSON) or no route serves (404) is counted and
   * carries the X-RateLimit-* headers like any other: the contract's "every /v1 response". The guard
   * then leaves the requests limit to this count; job starts it still counts itself.
   *
   * Only for a key that authenticates: such requests never reach authentication, so made-up keys
   * sent to them would each make a counter in the store and never count as failures. A key not in
   * this process's memory is looked up here (the lookup authentication would make, which then
   * answers it from memory), unless its address is past the failures limit: counted only when in
   * memory, a key's refused requests went without X-RateLimit-* headers and uncounted after 30 s
   * of quiet. Any other request is counted by the guard, as before, once a route takes it.
   */
  async limitBeforeBody(req: Request, res: Response): Promise<void> {
    const presented = presentedKeyOf(req);
    if (!isKeyedPath(req.path) || presented === undefined) return;
    if (!this.keys.answersFromMemory(presented) && (this.addressRefused(req) || !(await this.authenticates(req, presented)))) return;
    await this.limitRequest(req, res);
    Object.assign(req, { [COUNTED_BEFORE_BODY]: true });
  }

  /**
   * Whether `presented` is an enabled key (a store or database away: not known, left to the guard).
   * Its answer stays on the request, which authentication then reads instead of looking it up again.
   */
  private async authenticates(req: Request, presented: string): Promise<boolean> {
    try {
      req.apiKey = await this.keys.authenticate(presented);
      return true;
    } catch (error) {
      if (error instanceof DomainError) req.apiKeyRefusal = error;
      return false;
    }
  }

  private addressRefused(req: Request): boolean {
    const until = this.refusedUntil.get(`ip:${addressOf(req)}`);
    return until !== undefined && until > this.clock.now().getTime();
  }

  /**
   * Refuses a presented key that would need a lookup from an address past the failures limit (a key
   * in use there, answered from memory, goes on); counts the request against the address if its key
   * is refused.
   */
  private watchFailures(req: Request, res: Response): void {
    const presented = presentedKeyOf(req);
    if (presented === undefined) return;
    const address = `ip:${addressOf(req)}`;
    const now = this.clock.now().getTime();
    const until = this.refusedUntil.get(address);
    if (until !== undefined && until > now && !this.keys.answersFromMemory(presented)) {
      const retryAfter = Math.max(1, Math.ceil((until - now) / 1000));
      res.setHeader('Retry-After', String(retryAfter));
      throw new DomainError('rate_limited', `Rate limit exceeded: ${this.limits.requests} requests with unknown or disabled API keys per ${Math.round(this.limits.windowMs / 1000)} s from this address; retry after ${retryAfter} s`);
    }
    if (until !== undefined) this.refusedUntil.delete(address);
    res.once('finish', () => {
      if (res.statusCode === 401) void this.countFailure(address);
    });
  }

  private async countFailure(address: string): Promise<void> {
    const now = this.clock.now().getTime();
    try {
      const outcome = outcomeOf(await this.store.consume(`failures:${address}`, this.limits.requests, this.limits.windowMs, now), this.limits.windowMs, this.limits.requests);
      if (outcome.admitted) return;
      if (this.refusedUntil.size >= MAX_REFUSED_ADDRESSES) this.refusedUntil.delete(this.refusedUntil.keys().next().value as string);
      this.refusedUntil.set(address, now + outcome.retryAfterMs);
    } catch (error) {
      this.storeTrouble.warn(`rate-limit store unavailable, a refused key not counted: ${(error as Error).message}`);
    }
  }

  private startPredicateOf(handler: object): JobStartPredicate | null {
    let predicate = this.startPredicates.get(handler);
    if (predicate === undefined) {
      predicate = this.reflector.get<JobStartPredicate | undefined>(JOB_START, handler as () => void) ?? null;
      this.startPredicates.set(handler, predicate);
    }
    return predicate;
  }

  /**
   * Counts the request against `limit` (429 past it); when it was counted, the time it was counted
   * at: its own, or the start of a later window it was counted in (countsAt), which its headers and
   * a release go by.
   */
  private async apply(limit: Limit, tracker: string, res: Response): Promise<number | undefined> {
    let outcome: RateLimitOutcome;
    let countedAt: number;
    const now = this.clock.now().getTime();
    try {
      const counts = await this.store.consume(`${limit.name}:${tracker}`, limit.limit, this.limits.windowMs, now);
      countedAt = counts.windowStart + counts.elapsedMs;
      outcome = outcomeOf(counts, this.limits.windowMs, limit.limit);
      this.storeTrouble.recovered('the rate-limit store answers again');
    } catch (error) {
      this.storeTrouble.warn(`rate-limit store unavailable, request let through: ${(error as Error).message}`);
      return undefined;
    }
    res.setHeader(`${limit.header}-Limit`, String(limit.limit));
    res.setHeader(`${limit.header}-Remaining`, String(outcome.remaining));
    res.setHeader(`${limit.header}-Reset`, String(Math.ceil((countedAt + outcome.resetMs) / 1000)));
    if (outcome.admitted) return countedAt;
    const retryAfter = Math.max(1, Math.ceil((countedAt - now + outcome.retryAfterMs) / 1000));
    res.setHeader('Retry-After', String(retryAfter));
    const what = limit.name === 'starts' ? `${limit.limit} job starts` : `${limit.limit} requests`;
    throw new DomainError('rate_limited', `Rate limit exceeded: ${what} per ${Math.round(this.limits.windowMs / 1000)} s for this API key; retry after ${retryAfter} s`);
  }
}

function presentedKeyOf(req: Request): string | undefined {
  const header = req.headers['x-api-key'];
  return Array.isArray(header) ? header[0] : header;
}

/** the client's address: Express's (no proxy is trusted), or the socket's on a route served before Express dresses the request */
function addressOf(req: Request): string {
  return req.ip ?? req.socket?.remoteAddress ?? 'unknown';
}

/** the presented key's whole hash (its 48-bit fingerprint could be matched by a made-up key, to spend another key's limit), else the client's address */
function trackerOf(req: Request): string {
  const presented = presentedKeyOf(req);
  return presented ? `key:${hashApiKey(presented)}` : `ip:${addressOf(req)}`;
}

function startedNothing(res: Response): boolean {
  return res.statusCode >= 400 || res.getHeader(REPLAYED_HEADER) === 'true' || isMarkedStartedNothing(res);
}
