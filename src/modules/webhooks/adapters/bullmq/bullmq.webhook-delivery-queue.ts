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
    for (const delivery of deliveries) {
      // A queue job that fails (database down) is retried, then removed so the sweeper can queue the attempt again.
      const options = { jobId: `${delivery.id}-a${delivery.attempts}`, delay: delayMs, attempts: 3, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: { age: 3600 }, removeOnFail: true };
      try {
        await withTimeout(this.queue.add('deliver', { deliveryId: delivery.id }, options), QUEUE_HANDOFF_TIMEOUT_MS, 'the queue');
      } catch (error) {
        // The delivery is committed; the sweeper enqueues it later.
        this.logger.warn(`could not enqueue webhook delivery ${delivery.id}: ${(error as Error).message}`);
      }
    }
  }
}
