import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { NextFunction, Request, Response } from 'express';
import { Observable, tap } from 'rxjs';
import { UsageRecorder } from '../../application/usage-recorder';
import { JOB_ID_IN_PATH } from '../../../../contract/ids';
import { JOB_START, JobStartPredicate, REPLAYED_HEADER } from '../../../../common/http/route-markers';

interface UsageContext {
  jobId?: string;
  credits?: number;
}

/**
 * Notes the job a response is about, and the credits the request reserved, for the usage record of
 * that request. Only a request that starts a job (its route marked CountsAsJobStart) reserves them,
 * and not when it is an idempotent replay: a cancel, or a create sent again with its key, was
 * recorded with the job's whole reserve, which the dashboard then listed as spent twice.
 */
@Injectable()
export class UsageContextInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    const startsJob = this.reflector.get<JobStartPredicate | undefined>(JOB_START, context.getHandler());
    return next.handle().pipe(
      tap((body: unknown) => {
        const job = (body as { job?: { id?: string; credits_reserved?: number | null } } | null)?.job;
        if (!job?.id) return;
        const reserved = startsJob?.(req) === true && res.getHeader(REPLAYED_HEADER) === undefined;
        res.locals.usage = { jobId: job.id, credits: reserved ? (job.credits_reserved ?? 0) : 0 } satisfies UsageContext;
      }),
    );
  }
}

/** Records every authenticated /v1 and /api request when its response has been sent (never on the request path). */
export function usageMiddleware(recorder: UsageRecorder) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      if (!req.apiKey) return;
      const context = (res.locals.usage ?? {}) as UsageContext;
      const path = req.originalUrl.split('?')[0].slice(0, 300);
      recorder.record({
        apiKeyId: req.apiKey.id,
        method: req.method,
        path,
        statusCode: res.statusCode,
        durationMs: Number(process.hrtime.bigint() - started) / 1e6,
        jobId: context.jobId ?? JOB_ID_IN_PATH.exec(path)?.[1] ?? null,
        credits: context.credits ?? 0,
        at: new Date(),
      });
    });
    next();
  };
}
