import { createHmac } from 'node:crypto';
import { WEBHOOK_SECRET_PREFIX } from '../../../common/webhook-secret';

export { newWebhookSecret, WEBHOOK_SECRET_PREFIX } from '../../../common/webhook-secret';

/** The original service's scheme: `sha256=` + hex HMAC-SHA256(secret, timestamp + "." + raw body); the key is the secret string as shown. */
export function legacySignature(secret: string, isoTimestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${isoTimestamp}.${body}`).digest('hex')}`;
}

/** Standard Webhooks v1: base64 HMAC-SHA256 over `${id}.${unixSeconds}.${body}`, keyed by the base64-decoded secret. */
export function standardSignature(secret: string, messageId: string, unixSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${messageId}.${unixSeconds}.${body}`).digest('base64')}`;
}

/**
 * Every header of one delivery attempt. `secrets`: the key's secret first, then the one it replaced
 * while that still signs (a rotation's overlap): `webhook-signature` carries a `v1,` signature of
 * each (Standard Webhooks), so a receiver verifying with either accepts it; the original service's
 * `X-Webhook-Signature` holds one, the current secret's.
 */
export function webhookHeaders(input: { secrets: readonly string[]; deliveryId: string; event: string; body: string; now: Date }): Record<string, string> {
  const iso = input.now.toISOString();
  const unix = Math.floor(input.now.getTime() / 1000);
  const headers: Record<string, string> = {
    'X-Webhook-Event': input.event,
    'X-Webhook-Delivery-Id': input.deliveryId,
    'X-Webhook-Timestamp': iso,
    'webhook-id': input.deliveryId,
    'webhook-timestamp': String(unix),
  };
  const [current] = input.secrets;
  if (current) {
    headers['X-Webhook-Signature'] = legacySignature(current, iso, input.body);
    headers['webhook-signature'] = input.secrets.map((secret) => standardSignature(secret, input.deliveryId, unix, input.body)).join(' ');
  }
  return headers;
}
