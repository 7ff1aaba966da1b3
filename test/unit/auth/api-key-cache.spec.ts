import { FixedClock } from '../../../src/common/clock';
import { DomainError } from '../../../src/common/errors/domain-error';
import { InMemoryUnitOfWork } from '../../../src/common/in-memory.unit-of-work';
import { PortToken } from '../../../src/common/unit-of-work';
import { InMemoryApiKeyRepository } from '../../../src/modules/auth/adapters/in-memory/in-memory.api-key.repository';
import { ApiKeyCache } from '../../../src/modules/auth/application/api-key-cache';
import { ApiKeysService } from '../../../src/modules/auth/application/api-keys.service';
import { WebhookSecretOverlap } from '../../../src/modules/auth/application/webhook-secret-overlap';
import { ApiKey } from '../../../src/modules/auth/domain/api-key';
import { ApiKeyRepository } from '../../../src/modules/auth/ports/api-key.repository';
import { InMemoryCreditLedger } from '../../../src/modules/billing/adapters/in-memory/in-memory.credit-ledger';
import { CreditLedger } from '../../../src/modules/billing/ports/credit-ledger';

/** A repository that counts its lookups by hash: what the cache saves. */
class CountingRepository extends InMemoryApiKeyRepository {
  lookups = 0;
  override async findByHash(keyHash: string): Promise<ApiKey | null> {
    this.lookups += 1;
    return super.findByHash(keyHash);
  }
}

function setup() {
  const keys = new CountingRepository();
  const ledger = new InMemoryCreditLedger();
  const unitOfWork = new InMemoryUnitOfWork(new Map<PortToken<unknown>, unknown>([[ApiKeyRepository, keys], [CreditLedger, ledger]]));
  const clock = FixedClock.at('2026-01-01T00:00:00Z');
  const cache = new ApiKeyCache(keys.changes, clock, { maxAgeMs: 30_000, maxEntries: 3 });
  return { keys, clock, cache, service: new ApiKeysService(keys, unitOfWork, cache, new WebhookSecretOverlap(clock, 86_400_000)) };
}

const refusal = (promise: Promise<unknown>) => promise.then(() => 'accepted', (error: unknown) => (error instanceof DomainError ? error.code : String(error)));

describe('ApiKeyCache (API-key lookups kept in the process, dropped on news of a change)', () => {
  it('looks a key up once, then answers from memory', async () => {
    const { keys, service } = setup();
    const { apiKey } = await service.create('c', null, 0);
    for (let i = 0; i < 5; i += 1) await service.authenticate(apiKey);
    expect(keys.lookups).toBe(1);
  });

  it('keeps neither the balance nor the webhook secret', async () => {
    const { service } = setup();
    const { apiKey } = await service.create('c', null, 50);
    const key = await service.authenticate(apiKey);
    expect(key).not.toHaveProperty('credits');
    expect(key).not.toHaveProperty('webhookSecret');
  });

  it('a key disabled, re-enabled, deleted or given a new secret is read again at once', async () => {
    const { keys, service } = setup();
    const { apiKey, key } = await service.create('c', null, 0);
    await service.authenticate(apiKey);
    await keys.setEnabled(key.fingerprint, false); // as another process would: only the change feed tells
    expect(await refusal(service.authenticate(apiKey))).toBe('invalid_api_key');
    await keys.setEnabled(key.fingerprint, true);
    expect(await refusal(service.authenticate(apiKey))).toBe('accepted');
    const before = keys.lookups;
    await service.rotateWebhookSecret(key);
    await service.authenticate(apiKey);
    expect(keys.lookups).toBe(before + 1);
    keys.delete(key.id);
    expect(await refusal(service.authenticate(apiKey))).toBe('invalid_api_key');
  });

  it('does not keep what a lookup read while a change was announced', async () => {
    const { keys, cache } = setup();
    const created = await keys.create({ clientId: 'c', note: null, keyHash: 'a'.repeat(64), fingerprint: 'a'.repeat(12), webhookSecret: 'whsec_x' });
    const stale = { ...created };
    await cache.get(created.keyHash, async () => {
      await keys.setEnabled(created.fingerprint, false); // the change lands while the stale row is in flight
      return stale;
    });
    expect(cache.size).toBe(0);
    expect((await cache.get(created.keyHash, (hash) => keys.findByHash(hash)))?.enabled).toBe(false);
  });

  it('answers nothing from memory while the change feed is down, and forgets all it held when told to', async () => {
    const { keys, service } = setup();
    const { apiKey } = await service.create('c', null, 0);
    await service.authenticate(apiKey);
    keys.changes.live = false;
    await service.authenticate(apiKey);
    await service.authenticate(apiKey);
    expect(keys.lookups).toBe(3);
    keys.changes.live = true;
    keys.changes.announce(null);
    await service.authenticate(apiKey);
    await service.authenticate(apiKey);
    expect(keys.lookups).toBe(4);
  });

  it('reads a key again once its entry is older than maxAgeMs, and holds at most maxEntries', async () => {
    const { keys, clock, cache, service } = setup();
    const { apiKey } = await service.create('c', null, 0);
    await service.authenticate(apiKey);
    clock.advance(29_999);
    await service.authenticate(apiKey);
    expect(keys.lookups).toBe(1);
    clock.advance(1);
    await service.authenticate(apiKey);
    expect(keys.lookups).toBe(2);
    const more = await Promise.all([1, 2, 3, 4].map(() => service.create('c', null, 0)));
    for (const { apiKey: other } of more) await service.authenticate(other);
    expect(cache.size).toBe(3);
  });

  it('does not keep unknown keys: a key created after a miss works at once', async () => {
    const { keys, service } = setup();
    expect(await refusal(service.authenticate(`bd_live_${'y'.repeat(32)}`))).toBe('invalid_api_key');
    expect(await refusal(service.authenticate(`bd_live_${'y'.repeat(32)}`))).toBe('invalid_api_key');
    expect(keys.lookups).toBe(2);
  });
});
