import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { AuthModule } from '../auth/auth.module';
import { configureWebhookDeliveryProcessor, WebhookDeliveryProcessor } from './adapters/bullmq/webhook-delivery.processor';
import { DeliverWebhookHandler } from './application/deliver-webhook.handler';
import { WebhooksModule } from './webhooks.module';

/** The worker side: delivers queued webhooks, retries them, sweeps the outbox. */
@Module({
  imports: [AuthModule, WebhooksModule],
  providers: [DeliverWebhookHandler, WebhookDeliveryProcessor],
  exports: [DeliverWebhookHandler],
})
export class WebhooksWorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    configureWebhookDeliveryProcessor(config);
    return { module: WebhooksWorkerModule };
  }
}
