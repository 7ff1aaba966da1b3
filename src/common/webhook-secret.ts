import { randomBytes } from 'node:crypto';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** a secret a rotation replaced, still signing beside the new one until `validUntil` */
export interface PreviousWebhookSecret {
  secret: string;
  validUntil: Date;
}

/** at most this many replaced secrets are kept signing (rotations within a day of each other): a bounded header */
export const MAX_PREVIOUS_WEBHOOK_SECRETS = 3;

/** The secrets a delivery at `now` is signed with: the key's own, then those it replaced that are still valid. */
export function signingSecrets(key: { webhookSecret: string | null; previousWebhookSecrets: readonly PreviousWebhookSecret[] }, now: Date): string[] {
  const current = key.webhookSecret ? [key.webhookSecret] : [];
  return [...current, ...validPreviousSecrets(key.previousWebhookSecrets, now).map((previous) => previous.secret)];
}

/** the replaced secrets still valid at `now`, the latest replaced first, at most MAX_PREVIOUS_WEBHOOK_SECRETS */
export function validPreviousSecrets(previous: readonly PreviousWebhookSecret[], now: Date): PreviousWebhookSecret[] {
  return previous
    .filter((entry) => entry.validUntil > now)
    .sort((a, b) => b.validUntil.getTime() - a.validUntil.getTime())
    .slice(0, MAX_PREVIOUS_WEBHOOK_SECRETS);
}

/** whsec_ + base64 of 24 random bytes (the Standard Webhooks form): issued with a key, used to sign its webhooks. */
export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}
