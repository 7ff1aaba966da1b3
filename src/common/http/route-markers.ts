import { SetMetadata } from '@nestjs/common';
import type { Request } from 'express';

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
