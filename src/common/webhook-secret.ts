import { randomBytes } from 'node:crypto';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** whsec_ + base64 of 24 random bytes (the Standard Webhooks form): issued with a key, used to sign its webhooks. */
export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}
