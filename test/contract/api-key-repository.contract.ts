import { issueApiKey } from '../../src/modules/auth/domain/api-key';
import { ApiKeyRepository } from '../../src/modules/auth/ports/api-key.repository';

/** What every ApiKeyRepository must do (run on Postgres by repositories.contract.spec.ts, in memory by in-memory.contract.spec.ts). */
export function describeApiKeyRepositoryContract(keys: () => ApiKeyRepository): void {
  describe('ApiKeyRepository contract', () => {
    const newKey = () => {
      const issued = issueApiKey();
      return keys().create({ clientId: 'c', note: 'n', keyHash: issued.keyHash, fingerprint: issued.fingerprint, webhookSecret: 'whsec_dGVzdA==' });
    };

    it('finds a key by hash, fingerprint and id; unknown ones are null', async () => {
      const key = await newKey();
      expect(key).toMatchObject({ clientId: 'c', note: 'n', enabled: true, credits: 0, webhookSecret: 'whsec_dGVzdA==' });
      expect((await keys().findByHash(key.keyHash))?.id).toBe(key.id);
      expect((await keys().findByFingerprint(key.fingerprint))?.id).toBe(key.id);
      expect((await keys().findById(key.id))?.fingerprint).toBe(key.fingerprint);
      expect(await keys().findByFingerprint('000000000000')).toBeNull();
    });

    it('disables and re-enables by fingerprint; an unknown fingerprint changes nothing', async () => {
      const key = await newKey();
      expect((await keys().setEnabled(key.fingerprint, false))?.enabled).toBe(false);
      expect((await keys().findById(key.id))?.enabled).toBe(false);
      expect((await keys().setEnabled(key.fingerprint, true))?.enabled).toBe(true);
      expect(await keys().setEnabled('000000000000', false)).toBeNull();
    });

    it('rotates the webhook secret, keeping the one it replaced until the time given; lists and counts the keys', async () => {
      const key = await newKey();
      expect(key.previousWebhookSecret).toBeNull();
      const until = new Date('2030-01-02T03:04:05.000Z');
      await keys().rotateWebhookSecret(key.id, 'whsec_bmV3', until);
      expect(await keys().findById(key.id)).toMatchObject({ webhookSecret: 'whsec_bmV3', previousWebhookSecret: { secret: 'whsec_dGVzdA==', validUntil: until } });
      await keys().rotateWebhookSecret(key.id, 'whsec_bmV3ZXI=', new Date('2030-01-03T00:00:00.000Z'));
      expect(await keys().findById(key.id)).toMatchObject({ webhookSecret: 'whsec_bmV3ZXI=', previousWebhookSecret: { secret: 'whsec_bmV3', validUntil: new Date('2030-01-03T00:00:00.000Z') } });
      const listed = await keys().list();
      expect(listed.map((listedKey) => listedKey.id)).toContain(key.id);
      expect(await keys().count()).toBe(listed.length);
    });
  });
}
