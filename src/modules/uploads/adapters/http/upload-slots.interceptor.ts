import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import { finalize, Observable } from 'rxjs';
import { DomainError } from '../../../../common/errors/domain-error';
import { APP_CONFIG, AppConfig } from '../../../../config/app-config';

/** what the Retry-After of an upload refused for its key's uploads in flight says, seconds */
export const UPLOAD_SLOT_RETRY_AFTER_SECONDS = 5;

/**
 * At most MAX_UPLOADS_IN_FLIGHT_PER_KEY uploads of one key stream into one process at once; another
 * is answered 429 with Retry-After before its body is read. Each upload in flight holds a connection,
 * memory (with S3, the parts in flight) and, once whole, a probe: the request rate alone let one key
 * have a hundred at once. A slot is given back when its request ends, the client gone included.
 */
@Injectable()
export class UploadSlotsInterceptor implements NestInterceptor {
  private readonly inFlight = new Map<string, number>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    const keyId = req.apiKey?.id;
    if (!keyId) return next.handle();
    const limit = this.config.env.MAX_UPLOADS_IN_FLIGHT_PER_KEY;
    const held = this.inFlight.get(keyId) ?? 0;
    if (held >= limit) {
      res.setHeader('Retry-After', String(UPLOAD_SLOT_RETRY_AFTER_SECONDS));
      throw new DomainError('rate_limited', `At most ${limit} uploads of one API key at once; retry after ${UPLOAD_SLOT_RETRY_AFTER_SECONDS} s, or once one has finished`);
    }
    this.inFlight.set(keyId, held + 1);
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      const left = (this.inFlight.get(keyId) ?? 1) - 1;
      if (left > 0) this.inFlight.set(keyId, left);
      else this.inFlight.delete(keyId);
    };
    res.once('close', release);
    return next.handle().pipe(finalize(release));
  }
}
