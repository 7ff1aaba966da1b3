import { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Subject } from 'rxjs';
import { FixedClock } from '../../../src/common/clock';
import { Idempotent } from '../../../src/common/http/route-markers';
import { loadConfig } from '../../../src/config/app-config';
import { InMemoryIdempotencyStore } from '../../../src/modules/idempotency/adapters/in-memory/in-memory.idempotency-store';
import { IdempotencyInterceptor } from '../../../src/modules/idempotency/adapters/http/idempotency.interceptor';
import { requestFingerprint } from '../../../src/modules/idempotency/domain/request-fingerprint';

class Routes {
  @Idempotent()
  upload(): void {}
}

/** An upload under an Idempotency-Key whose file is still arriving (its work has not answered). */
function uploadStillArriving(interceptor: IdempotencyInterceptor): Promise<Subject<unknown>> {
  const req = { method: 'POST', path: '/v1/uploads', headers: { 'idempotency-key': 'slow-upload' }, apiKey: { id: 'key_1' }, body: {}, is: (type: string) => type === 'multipart/form-data' };
  const res = { setHeader: () => undefined, status: () => undefined, getHeader: () => undefined };
  const context = { getHandler: () => Routes.prototype.upload, switchToHttp: () => ({ getRequest: () => req, getResponse: () => res }) } as unknown as ExecutionContext;
  const work = new Subject<unknown>();
  return interceptor.intercept(context, { handle: () => work }).then((answer) => {
    answer.subscribe({ error: () => undefined });
    return work;
  });
}

describe('Idempotency-Key on work that runs longer than the abandonment time (a slow upload)', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] }));
  afterEach(() => jest.useRealTimers());

  it('keeps its claim while it runs: a retry 20 minutes in is still in progress (it took the claim over, and both uploads were stored)', async () => {
    const clock = FixedClock.at('2026-12-07T12:00:00Z');
    const store = new InMemoryIdempotencyStore(clock);
    const interceptor = new IdempotencyInterceptor(new Reflector(), store, loadConfig({}));
    const work = await uploadStillArriving(interceptor);
    const scope = { apiKeyId: 'key_1', key: 'slow-upload' };
    const retry = () => store.claim(scope, requestFingerprint('POST', '/v1/uploads', 'multipart'), 3600);

    for (let minute = 0; minute < 20; minute += 1) {
      clock.advance(60_000);
      await jest.advanceTimersByTimeAsync(60_000);
    }
    expect(await retry()).toEqual({ kind: 'in_progress' });

    work.error(new Error('the client went away'));
  });
});
