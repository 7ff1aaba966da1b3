import { randomBytes } from 'node:crypto';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** a secret a rotation replaced, still signing beside the new one until `validUntil` */
export interface PreviousWebhookSecret {
  secret: string;
  validUntil: Date;
}

/** The secrets a delivery at `now` is signed with: the key's own, then the one it replaced while that is still valid. */
export function signingSecrets(key: { webhookSecret: string | null; previousWebhookSecret: PreviousWebhookSecret | null }, now: Date): string[] {
  const previous = key.previousWebhookSecret;
  return [key.webhookSecret, previous && previous.validUntil > now ? previous.secret : null].filter((secret): secret is string => !!secret);
}

/** whsec_ + base64 of 24 random bytes (the Standard Webhooks form): issued with a key, used to sign its webhooks. */
export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}
