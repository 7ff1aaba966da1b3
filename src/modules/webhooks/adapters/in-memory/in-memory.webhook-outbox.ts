import type { Snapshottable } from '../../../../common/in-memory.unit-of-work';
import { QueuedDelivery, WebhookDeliveryQueue } from '../../ports/webhook-announcements';
import { WebhookDelivery, WebhookOutbox } from '../../ports/webhook-outbox';
import { WebhookEventName } from '../../../../contract/webhook-events';

/** What the job's webhook_events says of an event once its delivery is sent or failed (the Postgres outbox writes it in the attempt's statement). */
export type SettledDeliveryNote = (jobId: string, event: WebhookEventName, state: 'sent' | 'failed') => void;

/**
 * The outbox in memory: one delivery per job and event (a second add keeps the first), attempts
 * recorded only while a delivery is pending. It knows no jobs: a finished delivery's state reaches
 * the job's webhook_events through `settled`, which the composition points at the jobs it keeps.
 */
export class InMemoryWebhookOutbox extends WebhookOutbox implements Snapshottable {
  private deliveries = new Map<string, WebhookDelivery>();
  /** when each delivery was sent or failed */
  private readonly finishedAt = new Map<string, Date>();
  readonly attempts: Array<{ id: string; statusCode: number | null; error: string | null; outcome: 'sent' | 'failed' | 'retry' }> = [];

  constructor(
    private readonly now: () => Date = () => new Date(),
    private readonly settled: SettledDeliveryNote = () => undefined,
  ) {
    super();
  }

  snapshot(): () => void {
    const saved = new Map([...this.deliveries].map(([id, delivery]) => [id, { ...delivery }]));
    return () => {
      this.deliveries = saved;
    };
  }

  all(): WebhookDelivery[] {
    return [...this.deliveries.values()].map((delivery) => ({ ...delivery }));
  }

  async add(delivery: Omit<WebhookDelivery, 'status' | 'attempts' | 'nextAttemptAt'>): Promise<void> {
    if ([...this.deliveries.values()].some((existing) => existing.jobId === delivery.jobId && existing.event === delivery.event)) return;
    this.deliveries.set(delivery.id, { ...delivery, status: 'pending', attempts: 0, nextAttemptAt: this.now() });
  }

  async find(id: string): Promise<WebhookDelivery | null> {
    const delivery = this.deliveries.get(id);
    return delivery ? { ...delivery } : null;
  }

  async due(now: Date, limit: number): Promise<WebhookDelivery[]> {
    return this.all()
      .filter((delivery) => delivery.status === 'pending' && delivery.nextAttemptAt <= now)
      .sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime())
      .slice(0, limit);
  }

  async pruneFinished(before: Date): Promise<number> {
    const finished = [...this.finishedAt].filter(([, at]) => at < before).map(([id]) => id);
    for (const id of finished) {
      this.deliveries.delete(id);
      this.finishedAt.delete(id);
    }
    return finished.length;
  }

  async forgetKey(apiKeyId: string): Promise<number> {
    const owned = [...this.deliveries.values()].filter((delivery) => delivery.apiKeyId === apiKeyId).map((delivery) => delivery.id);
    for (const id of owned) {
      this.deliveries.delete(id);
      this.finishedAt.delete(id);
    }
    return owned.length;
  }

  async goneFor(jobId: string, url: string): Promise<boolean> {
    return this.attempts.some((attempt) => attempt.statusCode === 410 && this.deliveries.get(attempt.id)?.jobId === jobId && this.deliveries.get(attempt.id)?.url === url);
  }

  async recordAttempt(id: string, result: { statusCode: number | null; error: string | null; outcome: 'sent' | 'failed' | 'retry'; nextAttemptAt: Date | null }): Promise<void> {
    const delivery = this.deliveries.get(id);
    if (!delivery || delivery.status !== 'pending') return;
    this.attempts.push({ id, statusCode: result.statusCode, error: result.error, outcome: result.outcome });
    delivery.attempts += 1;
    delivery.status = result.outcome === 'retry' ? 'pending' : result.outcome;
    if (result.nextAttemptAt) delivery.nextAttemptAt = result.nextAttemptAt;
    if (delivery.status === 'pending') return;
    this.finishedAt.set(id, this.now());
    this.settled(delivery.jobId, delivery.event, delivery.status);
  }
}

/**
 * The delivery queue in memory: `enqueued` is every hand-off, with its delay, in order; `queued()`
 * is what the queue holds, one message per delivery attempt as BullMQ's job id makes it.
 */
export class InMemoryWebhookDeliveryQueue extends WebhookDeliveryQueue {
  readonly enqueued: Array<QueuedDelivery & { delayMs: number }> = [];
  private consumer?: (deliveryId: string) => Promise<void>;
  private readonly timers = new Set<NodeJS.Timeout>();

  /** Hands each queued attempt to `consumer` after its delay (the all-in-memory app gives it DeliverWebhookHandler). */
  consumeWith(consumer: (deliveryId: string) => Promise<void>): void {
    this.consumer = consumer;
  }

  /** Drops the attempts still waiting for their delay. */
  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  async enqueue(deliveries: ReadonlyArray<QueuedDelivery>, delayMs = 0): Promise<void> {
    for (const delivery of deliveries) {
      const fresh = !this.enqueued.some((queued) => queued.id === delivery.id && queued.attempts === delivery.attempts);
      this.enqueued.push({ ...delivery, delayMs });
      const consumer = this.consumer;
      if (!fresh || !consumer) continue;
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        void consumer(delivery.id).catch(() => undefined);
      }, delayMs);
      timer.unref();
      this.timers.add(timer);
    }
  }

  queued(): Array<QueuedDelivery & { delayMs: number }> {
    const seen = new Set<string>();
    return this.enqueued.filter((delivery) => {
      const id = `${delivery.id}-a${delivery.attempts}`;
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
  }
}
