import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { classifyResponse, nextRetryDelayMs } from '../../../src/modules/webhooks/domain/retry-schedule';
import { legacySignature, newWebhookSecret, standardSignature, webhookHeaders } from '../../../src/modules/webhooks/domain/webhook-signing';

describe('webhook signing', () => {
  it('reproduces the Standard Webhooks published test vector', () => {
    expect(standardSignature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('signs the original service scheme as sha256=hex(HMAC(secret, timestamp.body))', () => {
    const expected = createHmac('sha256', 'whsec_abc').update('2026-01-01T00:00:00.000Z.{"a":1}').digest('hex');
    expect(legacySignature('whsec_abc', '2026-01-01T00:00:00.000Z', '{"a":1}')).toBe(`sha256=${expected}`);
  });

  it('produces headers the independent standardwebhooks verifier accepts, and rejects when tampered', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const body = JSON.stringify({ event: 'job.completed', data: { id: 'job_x' } });
    const headers = webhookHeaders({ secrets: [secret], deliveryId: 'msg_1', event: 'job.completed', body, now: new Date() });
    const verifier = new Webhook(secret);
    expect(verifier.verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => verifier.verify(body.replace('job_x', 'job_y'), headers)).toThrow();
    expect(headers).toMatchObject({ 'X-Webhook-Event': 'job.completed', 'X-Webhook-Delivery-Id': 'msg_1', 'webhook-id': 'msg_1' });
  });

  it("during a rotation's overlap, signs with both secrets: a receiver on either verifies; X-Webhook-Signature is the new one's", () => {
    const [current, previous, other] = [newWebhookSecret(), newWebhookSecret(), newWebhookSecret()];
    const body = JSON.stringify({ event: 'job.completed', data: { id: 'job_x' } });
    const now = new Date();
    const headers = webhookHeaders({ secrets: [current, previous], deliveryId: 'msg_1', event: 'job.completed', body, now });
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(other).verify(body, headers)).toThrow();
    expect(headers['X-Webhook-Signature']).toBe(legacySignature(current, now.toISOString(), body));
  });

  it('sends no signature headers for a key without a secret', () => {
    const headers = webhookHeaders({ secrets: [], deliveryId: 'msg_1', event: 'job.failed', body: '{}', now: new Date() });
    expect(headers['X-Webhook-Signature']).toBeUndefined();
    expect(headers['webhook-signature']).toBeUndefined();
  });
});

describe('webhook retry schedule', () => {
  const schedule = [5, 30, 120, 600, 3600];

  it('waits about the scheduled delay (+-20%) after each failed attempt, then gives up', () => {
    expect(nextRetryDelayMs(schedule, 1, null, () => 0)).toBe(4000);
    expect(nextRetryDelayMs(schedule, 1, null, () => 1)).toBe(6000);
    expect(nextRetryDelayMs(schedule, 5, null, () => 0.5)).toBe(3_600_000);
    expect(nextRetryDelayMs(schedule, 6, null)).toBeNull();
  });

  it('honours a longer Retry-After', () => {
    expect(nextRetryDelayMs(schedule, 1, 60, () => 0.5)).toBe(60_000);
    expect(nextRetryDelayMs(schedule, 2, 1, () => 0.5)).toBe(30_000);
  });

  it("honours a Retry-After up to the schedule's longest step, so a delivery still ends failed", () => {
    expect(nextRetryDelayMs(schedule, 1, 3600, () => 0.5)).toBe(3_600_000);
    expect(nextRetryDelayMs(schedule, 1, 99_999_999, () => 0.5)).toBe(3_600_000);
  });

  it.each([
    [200, 'delivered'],
    [204, 'delivered'],
    [299, 'delivered'],
    [301, 'retry'],
    [410, 'stop'],
    [429, 'retry'],
    [500, 'retry'],
  ] as const)('classifies HTTP %i as %s', (status, verdict) => {
    expect(classifyResponse(status)).toBe(verdict);
  });
});
