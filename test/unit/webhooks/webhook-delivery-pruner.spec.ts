import { FixedClock } from '../../../src/common/clock';
import { InMemoryWebhookOutbox } from '../../../src/modules/webhooks/adapters/in-memory/in-memory.webhook-outbox';
import { WEBHOOK_DELIVERIES_KEPT_DAYS, WebhookDeliveryPruner } from '../../../src/modules/webhooks/application/webhook-delivery-pruner';

describe('WebhookDeliveryPruner', () => {
  const clock = FixedClock.at('2026-06-01T00:00:00Z');
  const daysAgo = (days: number) => new Date(clock.now().getTime() - days * 86_400_000);

  it(`removes the deliveries finished more than ${WEBHOOK_DELIVERIES_KEPT_DAYS} days ago, keeping later ones and pending ones`, async () => {
    let now = daysAgo(WEBHOOK_DELIVERIES_KEPT_DAYS + 1);
    const outbox = new InMemoryWebhookOutbox(() => now);
    const finish = async (id: string, at: Date) => {
      now = at;
      await outbox.add({ id, apiKeyId: 'key_a', jobId: `job_${id}`, event: 'job.completed', url: 'https://hooks.example.com', body: '{}' });
      await outbox.recordAttempt(id, { statusCode: 200, error: null, outcome: 'sent', nextAttemptAt: null });
    };
    await finish('old', daysAgo(WEBHOOK_DELIVERIES_KEPT_DAYS + 1));
    await finish('recent', daysAgo(WEBHOOK_DELIVERIES_KEPT_DAYS - 1));
    await outbox.add({ id: 'pending', apiKeyId: 'key_a', jobId: 'job_pending', event: 'job.completed', url: 'https://hooks.example.com', body: '{}' });
    expect(await new WebhookDeliveryPruner(outbox, clock).prune()).toBe(1);
    expect(outbox.all().map((delivery) => delivery.id).sort()).toEqual(['pending', 'recent']);
  });

  it('an outbox that does not answer is tried again the next hour, and the process goes on', async () => {
    const outbox = new InMemoryWebhookOutbox();
    jest.spyOn(outbox, 'pruneFinished').mockRejectedValueOnce(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
    expect(await new WebhookDeliveryPruner(outbox, clock).prune()).toBe(0);
  });
});
