import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { Observable, tap } from 'rxjs';
import { UsageRecorder } from '../../application/usage-recorder';
import { JOB_ID_IN_PATH } from '../../../../contract/ids';

interface UsageContext {
  jobId?: string;
  credits?: number;
}

/** Notes the job and the credits a /v1 response is about, for the usage record of that request. */
@Injectable()
export class UsageContextInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const res = context.switchToHttp().getResponse<Response>();
    return next.handle().pipe(
      tap((body: unknown) => {
        const job = (body as { job?: { id?: string; credits_reserved?: number | null } } | null)?.job;
        if (job?.id) res.locals.usage = { jobId: job.id, credits: job.credits_reserved ?? 0 } satisfies UsageContext;
      }),
    );
  }
}

/** Records every authenticated /v1 request when its response has been sent (never on the request path). */
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
