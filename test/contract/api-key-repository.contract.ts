import { issueApiKey } from '../../src/modules/auth/domain/api-key';
import { ApiKeyRepository } from '../../src/modules/auth/ports/api-key.repository';

/** What every ApiKeyRepository must do (run on Postgres by repositories.contract.spec.ts, in memory by in-memory.contract.spec.ts). */
export function describeApiKeyRepositoryContract(keys: () => ApiKeyRepository): void {
  describe('ApiKeyRepository contract', () => {
    const newKey = (webhookSecret: string | null = 'whsec_dGVzdA==') => {
      const issued = issueApiKey();
      return keys().create({ clientId: 'c', note: 'n', keyHash: issued.keyHash, fingerprint: issued.fingerprint, webhookSecret });
    };

    it('finds a key by hash, fingerprint and id; unknown ones are null', async () => {
      const key = await newKey();
      expect(key).toMatchObject({ clientId: 'c', note: 'n', enabled: true, credits: 0, webhookSecret: 'whsec_dGVzdA==' });
      expect((await keys().findByHash(key.keyHash))?.id).toBe(key.id);
      expect((await keys().findByFingerprint(key.fingerprint))?.id).toBe(key.id);
      expect((await keys().findById(key.id))?.fingerprint).toBe(key.fingerprint);
      expect(await keys().findByFingerprint('000000000000')).toBeNull();
      expect(await keys().findByHash(issueApiKey().keyHash)).toBeNull();
      expect(await keys().findById('00000000-0000-4000-8000-000000000000')).toBeNull();
    });

    it('lockDisabled says whether the key is disabled; a key without a row is not', async () => {
      const key = await newKey();
      expect(await keys().lockDisabled(key.id)).toBe(false);
      await keys().setEnabled(key.fingerprint, false);
      expect(await keys().lockDisabled(key.id)).toBe(true);
      expect(await keys().lockDisabled('00000000-0000-4000-8000-000000000000')).toBe(false);
    });

    it('disables and re-enables by fingerprint; an unknown fingerprint changes nothing', async () => {
      const key = await newKey();
      expect((await keys().setEnabled(key.fingerprint, false))?.enabled).toBe(false);
      expect((await keys().findById(key.id))?.enabled).toBe(false);
      expect((await keys().setEnabled(key.fingerprint, true))?.enabled).toBe(true);
      expect(await keys().setEnabled('000000000000', false)).toBeNull();
    });

    it('answers the state each change wrote, with a disable and an enable racing', async () => {
      const key = await newKey();
      const contradicted: string[] = [];
      for (let round = 0; round < 60; round += 1) {
        const [disabled, enabled] = await Promise.all([keys().setEnabled(key.fingerprint, false), keys().setEnabled(key.fingerprint, true)]);
        if (disabled?.enabled !== false || enabled?.enabled !== true) contradicted.push(`round ${round}: disable answered ${disabled?.enabled}, enable ${enabled?.enabled}`);
      }
      expect(contradicted).toEqual([]);
      expect((await keys().setEnabled(key.fingerprint, false))?.credits).toBe(0);
    });

    it('rotates the webhook secret, keeping those it replaced until their time (the latest first, at most 3, none past its time); lists and counts the keys', async () => {
      const key = await newKey();
      expect(key.previousWebhookSecrets).toEqual([]);
      const day = (n: number) => new Date(Date.UTC(2030, 0, n));
      await keys().rotateWebhookSecret(key.id, 'whsec_MQ==', { now: day(1), previousValidUntil: day(2) });
      expect(await keys().findById(key.id)).toMatchObject({ webhookSecret: 'whsec_MQ==', previousWebhookSecrets: [{ secret: 'whsec_dGVzdA==', validUntil: day(2) }] });
      await keys().rotateWebhookSecret(key.id, 'whsec_Mg==', { now: day(1), previousValidUntil: day(3) });
      expect((await keys().findById(key.id))?.previousWebhookSecrets).toEqual([
        { secret: 'whsec_MQ==', validUntil: day(3) },
        { secret: 'whsec_dGVzdA==', validUntil: day(2) },
      ]);
      await keys().rotateWebhookSecret(key.id, 'whsec_Mw==', { now: day(1), previousValidUntil: day(4) });
      await keys().rotateWebhookSecret(key.id, 'whsec_NA==', { now: day(1), previousValidUntil: day(5) });
      expect((await keys().findById(key.id))?.previousWebhookSecrets.map((previous) => previous.secret)).toEqual(['whsec_Mw==', 'whsec_Mg==', 'whsec_MQ==']);
      await keys().rotateWebhookSecret(key.id, 'whsec_NQ==', { now: day(4), previousValidUntil: day(6) });
      expect((await keys().findById(key.id))?.previousWebhookSecrets).toEqual([{ secret: 'whsec_NA==', validUntil: day(6) }, { secret: 'whsec_Mw==', validUntil: day(5) }]);
      await keys().rotateWebhookSecret(key.id, 'whsec_Ng==', { now: day(7), previousValidUntil: day(7) }); // no overlap
      expect(await keys().findById(key.id)).toMatchObject({ webhookSecret: 'whsec_Ng==', previousWebhookSecrets: [] });
      const listed = await keys().list();
      expect(listed.map((listedKey) => listedKey.id)).toContain(key.id);
      expect(await keys().count()).toBe(listed.length);
    });

    it('gives a key without a webhook secret one, once: of two at once one stays, a later one changes nothing, and a key with a secret keeps its own', async () => {
      const bare = await newKey(null);
      expect(bare.webhookSecret).toBeNull();
      await Promise.all([keys().giveWebhookSecretIfNone(bare.id, 'whsec_Zmlyc3Q='), keys().giveWebhookSecretIfNone(bare.id, 'whsec_c2Vjb25k')]);
      const given = (await keys().findById(bare.id))?.webhookSecret;
      expect(['whsec_Zmlyc3Q=', 'whsec_c2Vjb25k']).toContain(given);
      await keys().giveWebhookSecretIfNone(bare.id, 'whsec_dGhpcmQ=');
      expect(await keys().findById(bare.id)).toMatchObject({ webhookSecret: given, previousWebhookSecrets: [] });
      const keyed = await newKey();
      await keys().giveWebhookSecretIfNone(keyed.id, 'whsec_Zmlyc3Q=');
      expect((await keys().findById(keyed.id))?.webhookSecret).toBe('whsec_dGVzdA==');
    });
  });
}
