import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Job as QueueJob } from 'bullmq';
import { APP_CONFIG, AppConfig } from '../../../../config/app-config';
import { WEBHOOKS_QUEUE } from '../../../../infrastructure/queue/queue-connection';
import { stalledJobDetection } from '../../../../infrastructure/queue/stalled-job-detection';
import { DeliverWebhookHandler } from '../../application/deliver-webhook.handler';
import { DeliveryMessage } from './bullmq.webhook-delivery-queue';

/** Delivers webhooks from the queue, and sweeps the outbox for due deliveries now and then. */
@Processor(WEBHOOKS_QUEUE)
export class WebhookDeliveryProcessor extends WorkerHost implements OnApplicationBootstrap, OnApplicationShutdown {
  private sweeper?: NodeJS.Timeout;

  constructor(
    private readonly handler: DeliverWebhookHandler,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.sweeper = setInterval(() => void this.handler.sweep().catch(() => undefined), this.config.env.WEBHOOK_SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.sweeper);
  }

  async process(message: QueueJob<DeliveryMessage>): Promise<void> {
    await this.handler.handle(message.data.deliveryId);
  }
}

/** Worker options come from validated configuration, applied when the module is built. */
export function configureWebhookDeliveryProcessor(config: AppConfig): void {
  Processor(WEBHOOKS_QUEUE, { concurrency: 8, ...stalledJobDetection(config, 1) })(WebhookDeliveryProcessor);
}
