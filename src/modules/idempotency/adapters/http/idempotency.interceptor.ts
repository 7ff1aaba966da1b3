import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { catchError, finalize, from, mergeMap, Observable, of, throwError } from 'rxjs';
import { isDependencyOutage } from '../../../../common/errors/dependency-outage';
import { DomainError } from '../../../../common/errors/domain-error';
import { digestMultipartBody, digestOfFiles, filesOf } from '../../../../common/http/multipart-digest';
import { untilWritten, UNTIL_WRITTEN_DELAYS_MS } from '../../../../common/until-written';
import { APP_CONFIG, AppConfig } from '../../../../config/app-config';
import { requestFingerprint } from '../../domain/request-fingerprint';
import { ABANDONED_AFTER_SECONDS, IdempotencyClaim, IdempotencyScope, IdempotencyStore } from '../../ports/idempotency-store';
import { answeredEarlierWork, DeferredRefusal, IDEMPOTENT, refusalUnlessReplayed, REPLAYED_HEADER, runUnderClaim } from '../../../../common/http/route-markers';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/**
 * Idempotency-Key on the routes marked @Idempotent (global, so it runs after the guards, which have
 * authenticated the key, and before route interceptors such as the upload's multipart parser, so a
 * replay or a refusal never stores the file again).
 *
 * - First request: the key is claimed, the work done, its 2xx response stored for IDEMPOTENCY_TTL_SECONDS.
 * - Same key, same request: the stored response is replayed (same status and body, `Idempotent-Replayed: true`).
 *   An upload is the same when its files have the same fields, names and bytes: they are hashed as the
 *   first is stored, and a repeat's are read and hashed (not stored) before it is answered.
 * - Same key, another body or route: 422 idempotency_mismatch. Still running: 409 idempotency_in_progress.
 * - The work failing (any error response) gives the key back, so a retry runs it again.
 * - The work runs under its claim (`claimOfRequest`): what it creates is noted in its own transaction,
 *   so a retry that takes over the claim of a process that died before answering is answered with
 *   that (the job as it is now), not given a second one.
 * - A completion or release the store cannot take now is tried again in the background.
 * - While the work runs (an upload may take 30 minutes to arrive), its claim is kept: it is not taken
 *   for abandoned, nor does the key expire under it.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly store: IdempotencyStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    if (!this.reflector.get<boolean>(IDEMPOTENT, context.getHandler())) return next.handle();
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    const header = req.headers[IDEMPOTENCY_HEADER];
    if (header === undefined || !req.apiKey) return next.handle();
    const key = Array.isArray(header) ? header[0] : header;
    if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
      throw DomainError.invalid('Idempotency-Key', `must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
    }
    const scope: IdempotencyScope = { apiKeyId: req.apiKey.id, key };
    const multipart = Boolean(req.is('multipart/form-data'));
    const fingerprint = requestFingerprint(req.method, req.path, multipart ? 'multipart' : { json: req.body });
    const refusal = refusalUnlessReplayed(req);
    const claim = refusal ? await this.claimDespiteRefusal(scope, fingerprint, refusal, res) : await this.store.claim(scope, fingerprint, this.config.env.IDEMPOTENCY_TTL_SECONDS);
    if (multipart && (claim.kind === 'mismatch' || claim.kind === 'in_progress')) await bodyReceived(req);
    switch (claim.kind) {
      case 'mismatch':
        throw mismatch();
      case 'in_progress':
        throw new DomainError('idempotency_in_progress', 'A request with this Idempotency-Key is still being processed; retry once it has finished');
      case 'completed':
        if (multipart && !(await this.sameFiles(req, claim.bodyDigest))) throw mismatch();
        res.setHeader(REPLAYED_HEADER, 'true');
        res.status(claim.status);
        return of(claim.body);
      case 'claimed': {
        const { claimId } = claim;
        const { createdBefore } = claim;
        runUnderClaim(req, createdBefore === undefined ? { scope, claimId } : { scope, claimId, createdBefore });
        const status = this.reflector.get<number | undefined>(HTTP_CODE_METADATA, context.getHandler()) ?? (req.method === 'POST' ? 201 : 200);
        const keeping = this.keepClaimedWhileWorking(scope, claimId);
        return next.handle().pipe(
          finalize(() => clearInterval(keeping)),
          // the work is done: its answer goes out though the store could not take it now (a client told 503 would do the work again)
          mergeMap((body) => {
            // what an earlier run created, answered as it is now: no new work was done, as in a replay
            if (answeredEarlierWork(res)) res.setHeader(REPLAYED_HEADER, 'true');
            const complete = (): Promise<void> => this.store.complete(scope, claimId, status, body, multipart ? digestOfFiles(filesOf(req)) : undefined);
            return from(complete().catch(() => this.writeLater(complete)).then(() => body));
          }),
          catchError((error: unknown) => {
            const release = (): Promise<void> => this.store.release(scope, claimId);
            return from(release().catch(() => this.writeLater(release))).pipe(mergeMap(() => throwError(() => error)));
          }),
        );
      }
    }
  }

  /**
   * A request the guards refused unless it is a replay (a job start over the per-key limit) claims
   * nothing, and is refused, unless its key holds an answer: a completed one, or the job that an
   * abandoned claim's work created before its process died (taken over, it is answered as it is
   * now, starting nothing). A takeover that finds nothing created gives the key back.
   */
  private async claimDespiteRefusal(scope: IdempotencyScope, fingerprint: string, refusal: DeferredRefusal, res: Response): Promise<IdempotencyClaim> {
    const held = await this.store.peek(scope, fingerprint);
    if (held.kind === 'completed') return held;
    if (held.kind === 'in_progress') {
      const claim = await this.store.claim(scope, fingerprint, this.config.env.IDEMPOTENCY_TTL_SECONDS);
      if (claim.kind === 'completed' || (claim.kind === 'claimed' && claim.createdBefore !== undefined)) return claim;
      if (claim.kind === 'claimed') await this.store.release(scope, claim.claimId);
    }
    for (const [name, value] of Object.entries(refusal.headers)) res.setHeader(name, value);
    throw refusal.error;
  }

  /**
   * Keeps the claim while its work runs, at a third of the abandonment time (at half the key's time
   * to live where that is shorter): an upload still arriving after 15 minutes (30 are allowed) had
   * its claim taken over by a retry, and both were stored. Clear the timer when the work ends.
   */
  private keepClaimedWhileWorking(scope: IdempotencyScope, claimId: string): NodeJS.Timeout {
    const ttlSeconds = this.config.env.IDEMPOTENCY_TTL_SECONDS;
    const everyMs = Math.min(ABANDONED_AFTER_SECONDS / 3, ttlSeconds / 2) * 1000;
    const timer = setInterval(() => void this.store.keepClaimed(scope, claimId, ttlSeconds).catch(() => undefined), everyMs);
    timer.unref();
    return timer;
  }

  /** Whether an upload's files are those of the one done under its key (read and hashed, not stored). */
  private async sameFiles(req: Request, doneDigest: string | undefined): Promise<boolean> {
    if (doneDigest !== undefined) return (await digestMultipartBody(req, this.config.maxUploadBytes)) === doneDigest;
    await bodyReceived(req);
    return false;
  }

  /**
   * A write the store could not take (its database away) is tried again in the background until it
   * lands: a key left claimed answered every retry 409 idempotency_in_progress for 15 minutes.
   */
  private writeLater(write: () => Promise<void>): void {
    void untilWritten(write, () => undefined, UNTIL_WRITTEN_DELAYS_MS, isDependencyOutage).catch(() => undefined);
  }
}

const mismatch = (): DomainError =>
  new DomainError('idempotency_mismatch', 'This Idempotency-Key was already used with a different request; use a new key for a new request');

/**
 * A multipart request answered from the store (a replay, a mismatch, one still running) has not had
 * its file read. The answer waits until the client has sent it all: a client still uploading then
 * reads the answer instead of meeting a broken pipe. Node reads and drops an unread body after the
 * answer anyway, so waiting costs no extra bytes.
 */
function bodyReceived(req: Request): Promise<void> {
  if (req.complete) return Promise.resolve();
  return new Promise<void>((resolve) => {
    req.once('end', resolve);
    req.once('close', resolve);
    req.resume();
  });
}
