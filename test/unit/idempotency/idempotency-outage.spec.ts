import { InMemoryIdempotencyStore } from '../../../src/modules/idempotency/adapters/in-memory/in-memory.idempotency-store';
import { IdempotencyScope } from '../../../src/modules/idempotency/ports/idempotency-store';
import { appOnStore, VIDEO } from './app-on-store';
import { eventually } from '../../support/test-app';

/** The in-memory store, whose next completion or release fails as a database away does. */
class StoreAwayOnce extends InMemoryIdempotencyStore {
  awayFor: 'complete' | 'release' | null = null;

  override async complete(scope: IdempotencyScope, claimId: string, status: number, body: unknown, bodyDigest?: string): Promise<void> {
    this.failIfAway('complete');
    return super.complete(scope, claimId, status, body, bodyDigest);
  }

  override async release(scope: IdempotencyScope, claimId: string): Promise<void> {
    this.failIfAway('release');
    return super.release(scope, claimId);
  }

  private failIfAway(write: 'complete' | 'release'): void {
    if (this.awayFor !== write) return;
    this.awayFor = null;
    throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  }
}

describe('Idempotency-Key while the store cannot take a write', () => {
  const store = new StoreAwayOnce();
  const app = appOnStore(store);

  const createJob = (idempotencyKey: string, body: object) => app.t.http.post('/v1/jobs').set('X-Api-Key', app.key).set('Idempotency-Key', idempotencyKey).send(body);

  it('a job created is answered as created though its answer could not be stored, and a retry replays it (it was a 503, and the retry a second job)', async () => {
    store.awayFor = 'complete';
    const body = { video_url: VIDEO, auto_start: false };
    const first = await createJob('created-once', body);
    expect(first.status).toBe(200);
    const replayed = await eventually(async () => {
      const retry = await createJob('created-once', body);
      return retry.headers['idempotent-replayed'] === 'true' ? retry : undefined;
    });
    expect(replayed.body.id).toBe(first.body.id);
    expect((await app.t.http.get('/v1/jobs').set('X-Api-Key', app.key)).body.total).toBe(1);
  });

  it('a request that failed gives its key back once the store takes it (every retry was 409 in progress for 15 minutes)', async () => {
    store.awayFor = 'release';
    const invalid = { video_url: 'not a url' };
    expect((await createJob('failed-once', invalid)).status).toBe(400);
    const again = await eventually(async () => {
      const retry = await createJob('failed-once', invalid);
      return retry.status === 409 ? undefined : retry;
    });
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('invalid_request');
  });
});
