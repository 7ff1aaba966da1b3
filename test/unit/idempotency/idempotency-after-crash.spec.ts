import { InMemoryIdempotencyStore } from '../../../src/modules/idempotency/adapters/in-memory/in-memory.idempotency-store';
import { ABANDONED_AFTER_SECONDS } from '../../../src/modules/idempotency/ports/idempotency-store';
import { IdempotencyScope } from '../../../src/modules/idempotency/ports/idempotency-store';
import { hashApiKey } from '../../../src/common/api-key-format';
import { requestFingerprint } from '../../../src/modules/idempotency/domain/request-fingerprint';
import { appOnStore, VIDEO } from './app-on-store';

/**
 * The in-memory store on a clock that can be moved on, whose next completion is lost: the work
 * committed, then the process died before the answer was stored (and before it was sent).
 */
class StoreOfAProcessThatDies extends InMemoryIdempotencyStore {
  private shiftMs = 0;
  dieBeforeNextCompletion = false;

  constructor() {
    super({ now: () => new Date(Date.now() + this.shiftMs) });
  }

  /** ABANDONED_AFTER_SECONDS pass: the dead process's claim may be taken over */
  abandonClaims(): void {
    this.shiftMs += (ABANDONED_AFTER_SECONDS + 1) * 1000;
  }

  override async complete(scope: IdempotencyScope, claimId: string, status: number, body: unknown, bodyDigest?: string): Promise<void> {
    if (!this.dieBeforeNextCompletion) return super.complete(scope, claimId, status, body, bodyDigest);
    this.dieBeforeNextCompletion = false;
  }
}

describe('Idempotency-Key after the process that did the work died before storing its answer', () => {
  const store = new StoreOfAProcessThatDies();
  const app = appOnStore(store);

  const post = (path: string, idempotencyKey: string, body: object) => app.t.http.post(path).set('X-Api-Key', app.key).set('Idempotency-Key', idempotencyKey).send(body);
  const jobCount = async () => (await app.t.http.get('/v1/jobs').set('X-Api-Key', app.key)).body.total;

  it('a retry once the claim is abandoned answers the job the dead process created, as it is now (it created and charged a second job)', async () => {
    store.dieBeforeNextCompletion = true;
    const body = { video_url: VIDEO, model: 'light' };
    const first = await post('/v1/jobs', 'create-then-die', body);
    expect(first.status).toBe(200);
    // the client never got that answer: until the claim is abandoned its retries are in progress
    expect((await post('/v1/jobs', 'create-then-die', body)).status).toBe(409);

    store.abandonClaims();
    const retry = await post('/v1/jobs', 'create-then-die', body);
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.id).toBe(first.body.id);
    expect(await jobCount()).toBe(1);
    // the retry's answer is stored as any other: the next one replays it
    const replay = await post('/v1/jobs', 'create-then-die', body);
    expect([replay.headers['idempotent-replayed'], replay.body.id]).toEqual(['true', first.body.id]);
  });

  it("a draft's start retried so answers the started job (it was 409: only drafts can be started)", async () => {
    const draft = await post('/v1/jobs', 'draft', { video_url: VIDEO, model: 'light', auto_start: false });
    store.dieBeforeNextCompletion = true;
    expect((await post(`/v1/jobs/${draft.body.id}/start`, 'start-then-die', {})).status).toBe(200);

    store.abandonClaims();
    const retry = await post(`/v1/jobs/${draft.body.id}/start`, 'start-then-die', {});
    expect(retry.status).toBe(200);
    expect(retry.body.id).toBe(draft.body.id);
    expect(retry.headers['idempotent-replayed']).toBe('true');
  });
});

describe('Idempotency-Key after a crash, on a key at its start limit', () => {
  const store = new StoreOfAProcessThatDies();
  const app = appOnStore(store, { RATE_LIMIT_STARTS_PER_MINUTE: '1' });

  const post = (idempotencyKey: string, body: object) => app.t.http.post('/v1/jobs').set('X-Api-Key', app.key).set('Idempotency-Key', idempotencyKey).send(body);

  it('a retry that takes over the dead claim answers its job, as a replay would be (it was 429: the limit saw the claim in progress)', async () => {
    store.dieBeforeNextCompletion = true;
    const body = { video_url: VIDEO, model: 'light' };
    const first = await post('started-then-died', body);
    expect(first.status).toBe(200);

    store.abandonClaims();
    const retry = await post('started-then-died', body);
    expect([retry.status, retry.headers['idempotent-replayed'], retry.body.id]).toEqual([200, 'true', first.body.id]);
    // the limit still holds for a new start
    const another = await post('another', body);
    expect([another.status, another.body.error?.code]).toEqual([429, 'rate_limited']);
    expect((await app.t.http.get('/v1/jobs').set('X-Api-Key', app.key)).body.total).toBe(1);
  });

  it('a retry that takes over a dead claim whose work created nothing is refused by the limit, and gives the key back', async () => {
    const body = { video_url: VIDEO, model: 'light' };
    const apiKeyId = (await app.t.adapters.keys.findByHash(hashApiKey(app.key)))?.id ?? '';
    const scope = { apiKeyId, key: 'died-before-creating' };
    const fingerprint = requestFingerprint('POST', '/v1/jobs', { json: body });
    // a process claimed the key and died before its job was written
    expect(await store.claim(scope, fingerprint, 3600)).toMatchObject({ kind: 'claimed' });
    store.abandonClaims();
    const retry = await post('died-before-creating', body);
    expect([retry.status, retry.body.error?.code]).toEqual([429, 'rate_limited']);
    expect(await store.peek(scope, fingerprint)).toEqual({ kind: 'free' });
  });
});
