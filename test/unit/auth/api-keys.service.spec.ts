import { DomainError } from '../../../src/common/errors/domain-error';
import { InMemoryUnitOfWork } from '../../../src/common/in-memory.unit-of-work';
import { PortToken } from '../../../src/common/unit-of-work';
import { InMemoryApiKeyRepository } from '../../../src/modules/auth/adapters/in-memory/in-memory.api-key.repository';
import { ApiKeyCache } from '../../../src/modules/auth/application/api-key-cache';
import { ApiKeysService } from '../../../src/modules/auth/application/api-keys.service';
import { WebhookSecretOverlap } from '../../../src/modules/auth/application/webhook-secret-overlap';
import { FixedClock } from '../../../src/common/clock';
import { signingSecrets } from '../../../src/common/webhook-secret';
import { ApiKeyRepository } from '../../../src/modules/auth/ports/api-key.repository';
import { InMemoryCreditLedger } from '../../../src/modules/billing/adapters/in-memory/in-memory.credit-ledger';
import { CreditLedger } from '../../../src/modules/billing/ports/credit-ledger';

function service() {
  const keys = new InMemoryApiKeyRepository();
  const ledger = new InMemoryCreditLedger();
  const unitOfWork = new InMemoryUnitOfWork(new Map<PortToken<unknown>, unknown>([[ApiKeyRepository, keys], [CreditLedger, ledger]]));
  const clock = FixedClock.at('2026-01-01T00:00:00Z');
  const cache = new ApiKeyCache(keys.changes, clock, { maxAgeMs: 30_000 });
  return { keys, ledger, clock, cache, service: new ApiKeysService(keys, unitOfWork, cache, new WebhookSecretOverlap(clock, 86_400_000)) };
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(() => undefined, (thrown: unknown) => thrown);
  if (!(error instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(error)}`);
  return error.code;
}

describe('ApiKeysService (keys and their credits) on in-memory adapters', () => {
  it('issues a key whose plaintext authenticates it, with its starting credits in the ledger', async () => {
    const { ledger, service: keys } = service();
    const { apiKey, key } = await keys.create('client', null, 50);
    expect(apiKey).toMatch(/^bd_live_[0-9A-Za-z]{32}$/);
    expect((await keys.authenticate(apiKey)).id).toBe(key.id);
    expect(await ledger.balance(key.id)).toBe(50);
    expect(key.webhookSecret).toMatch(/^whsec_/);
  });

  it('answers missing, malformed, unknown and disabled keys without telling them apart beyond missing', async () => {
    const { service: keys } = service();
    const { apiKey, key } = await keys.create('client', null, 0);
    expect(await codeOf(keys.authenticate(undefined))).toBe('missing_api_key');
    expect(await codeOf(keys.authenticate('nonsense'))).toBe('invalid_api_key');
    expect(await codeOf(keys.authenticate(`bd_live_${'x'.repeat(32)}`))).toBe('invalid_api_key');
    await keys.setEnabled(key.fingerprint, false);
    expect(await codeOf(keys.authenticate(apiKey))).toBe('invalid_api_key');
  });

  it('grants and deducts credits through the ledger, never below zero; an unknown key is not_found', async () => {
    const { ledger, service: keys } = service();
    const { key } = await keys.create('client', null, 10);
    await keys.grantCredits(key.fingerprint, 5);
    expect(await ledger.balance(key.id)).toBe(15);
    await keys.grantCredits(key.fingerprint, -100);
    expect(await ledger.balance(key.id)).toBe(0);
    expect(await codeOf(keys.grantCredits('000000000000', 5))).toBe('not_found');
  });

  it('rotating the webhook secret replaces it; the old one is said to sign beside it for a day (WEBHOOK_SECRET_OVERLAP_SECONDS), then no more', async () => {
    const { keys: repository, service: keys, clock } = service();
    const { key } = await keys.create('client', null, 0);
    expect(await keys.webhookSecret(key)).toEqual({ secret: key.webhookSecret, previousValidUntil: null });
    const rotated = await keys.rotateWebhookSecret(key);
    const aDayOn = new Date(clock.now().getTime() + 86_400_000);
    expect(rotated).toEqual({ secret: expect.stringMatching(/^whsec_/), previousValidUntil: aDayOn });
    expect(rotated.secret).not.toBe(key.webhookSecret);
    expect(await repository.findById(key.id)).toMatchObject({ webhookSecret: rotated.secret, previousWebhookSecrets: [{ secret: key.webhookSecret, validUntil: aDayOn }] });
    expect(await keys.webhookSecret(key)).toEqual(rotated);
    clock.advance(86_400_000);
    expect(await keys.webhookSecret(key)).toEqual({ secret: rotated.secret, previousValidUntil: null });
  });

  it('a second rotation within the overlap (a retried POST) keeps the first secret signing too', async () => {
    const { keys: repository, service: keys, clock } = service();
    const { key } = await keys.create('client', null, 0);
    const first = await keys.rotateWebhookSecret(key);
    clock.advance(60_000);
    const second = await keys.rotateWebhookSecret(key);
    expect(signingSecrets((await repository.findById(key.id))!, clock.now())).toEqual([second.secret, first.secret, key.webhookSecret]);
    expect(second.previousValidUntil).toEqual(new Date(clock.now().getTime() + 86_400_000));
  });

  it('a key without a webhook secret (from before secrets were issued) gets one on its first read; two reads at once get the same one, with none previous', async () => {
    const { keys: repository, service: keys } = service();
    const bare = await repository.create({ clientId: 'client', note: null, keyHash: 'h'.repeat(64), fingerprint: 'f'.repeat(12), webhookSecret: null });
    const [first, second] = await Promise.all([keys.webhookSecret(bare), keys.webhookSecret(bare)]);
    expect(first).toEqual({ secret: expect.stringMatching(/^whsec_/), previousValidUntil: null });
    expect(second).toEqual(first);
    expect(await repository.findById(bare.id)).toMatchObject({ webhookSecret: first.secret, previousWebhookSecrets: [] });
  });
});
