import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import { Queue } from 'bullmq';
import { QUEUE_HANDOFF_TIMEOUT_MS, withTimeout } from '../../../../common/with-timeout';
import { WEBHOOKS_QUEUE } from '../../../../infrastructure/queue/queue-connection';
import { QueuedDelivery, WebhookDeliveryQueue } from '../../ports/webhook-announcements';

export interface DeliveryMessage {
  deliveryId: string;
}

/**
 * Hands committed deliveries to the webhooks queue. The queue job id names the delivery and its
 * attempt, so the relay and the sweeper can both enqueue without sending an attempt twice.
 */
@Injectable()
export class BullMqWebhookDeliveryQueue extends WebhookDeliveryQueue {
  private readonly logger = new Logger(BullMqWebhookDeliveryQueue.name);

  constructor(@InjectQueue(WEBHOOKS_QUEUE) private readonly queue: Queue<DeliveryMessage>) {
    super();
  }

  async enqueue(deliveries: ReadonlyArray<QueuedDelivery>, delayMs = 0): Promise<void> {
    for (const [index, delivery] of deliveries.entries()) {
      // A queue job that fails (database down) is retried, then removed so the sweeper can queue the attempt again.
      const options = { jobId: `${delivery.id}-a${delivery.attempts}`, delay: delayMs, attempts: 3, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: { age: 3600 }, removeOnFail: true };
      try {
        await withTimeout(this.queue.add('deliver', { deliveryId: delivery.id }, options), QUEUE_HANDOFF_TIMEOUT_MS, 'the queue');
      } catch (error) {
        // The deliveries are committed; the sweeper enqueues them later. The queue did not answer, so
        // the rest are not tried now: each would wait out its timeout too.
        const rest = deliveries.length - index - 1;
        this.logger.warn(`could not enqueue webhook delivery ${delivery.id}${rest ? ` (nor, untried, ${rest} more)` : ''}: ${(error as Error).message}`);
        return;
      }
    }
  }
}
