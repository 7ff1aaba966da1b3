import { SetMetadata } from '@nestjs/common';
import type { Request, Response } from 'express';

/*
 * Route markers read by cross-cutting adapters (the idempotency interceptor, the per-key job-start
 * limit): plain metadata, so any module's controller carries them without importing those modules.
 */

export const IDEMPOTENT = 'backdrop:idempotent';

/** The header an idempotent route's replayed answer carries (value `true`). */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** The route honours an Idempotency-Key header (contract: Idempotency). */
export const Idempotent = (): MethodDecorator => SetMetadata(IDEMPOTENT, true);

export const JOB_START = 'backdrop:job-start';

export type JobStartPredicate = (req: Request) => boolean;

/**
 * Marks a route whose requests count against the per-key job-start limit; `when` narrows it to the
 * requests that start a job (POST /v1/jobs starts one unless `auto_start` is false).
 */
export const CountsAsJobStart = (when: JobStartPredicate = () => true): MethodDecorator => SetMetadata(JOB_START, when);

export const startsUnlessDraft: JobStartPredicate = (req) => (req.body as { auto_start?: unknown } | undefined)?.auto_start !== false;

const STARTED_NOTHING = 'backdropStartedNothing';

/**
 * Marks a start route's answer that started nothing though it is no error: a create with auto_start
 * refused for credit answers its job, stored failed. The job-start limit gives its slot back, as for
 * a refused start; it was spent, and a key without credit ran out of starts for its next real one.
 */
export function markStartedNothing(res: Response): void {
  res.locals[STARTED_NOTHING] = true;
}

export function isMarkedStartedNothing(res: Response): boolean {
  return res.locals?.[STARTED_NOTHING] === true;
}

const REFUSED_UNLESS_REPLAYED = Symbol('refused unless replayed');

/** an error to answer with, and the headers that go with it */
export interface DeferredRefusal {
  error: Error;
  headers: Record<string, string>;
}

/**
 * A refusal that holds only if the request is not a replay: a job start over the per-key limit
 * under an Idempotency-Key starts nothing if it repeats a start already done, and is answered with
 * that start's response (the idempotency interceptor, which runs after the guards, decides).
 */
export function refuseUnlessReplayed(req: Request, refusal: DeferredRefusal): void {
  Object.assign(req, { [REFUSED_UNLESS_REPLAYED]: refusal });
}

/** the refusal `refuseUnlessReplayed` left on the request, if any */
export function refusalUnlessReplayed(req: Request): DeferredRefusal | undefined {
  return (req as unknown as Record<symbol, DeferredRefusal | undefined>)[REFUSED_UNLESS_REPLAYED];
}

const IDEMPOTENCY_CLAIM = Symbol('idempotency claim');

/**
 * The Idempotency-Key claim a request's work runs under (the idempotency interceptor sets it): the
 * work names what it creates to the key's store in its own transaction, and `createdBefore` is what
 * an earlier run of the same request created before its process died unanswered.
 */
export interface RequestClaim {
  scope: { apiKeyId: string; key: string };
  claimId: string;
  createdBefore?: string;
}

export function runUnderClaim(req: Request, claim: RequestClaim): void {
  Object.assign(req, { [IDEMPOTENCY_CLAIM]: claim });
}

/** the claim the request runs under; none without an Idempotency-Key */
export function claimOfRequest(req: Request): RequestClaim | undefined {
  return (req as unknown as Record<symbol, RequestClaim | undefined>)[IDEMPOTENCY_CLAIM];
}

const ANSWERED_EARLIER_WORK = 'backdropAnsweredEarlierWork';

/** The route answered what an earlier run of the request created (`RequestClaim.createdBefore`): no new work, so the answer is marked replayed. */
export function markAnsweredEarlierWork(res: Response): void {
  res.locals[ANSWERED_EARLIER_WORK] = true;
}

export function answeredEarlierWork(res: Response): boolean {
  return res.locals?.[ANSWERED_EARLIER_WORK] === true;
}
