import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuthModule } from '../auth/auth.module';
import { BullMqWebhookDeliveryQueue } from './adapters/bullmq/bullmq.webhook-delivery-queue';
import { TypeOrmWebhookOutbox } from './adapters/typeorm/typeorm.webhook-outbox';
import { WebhookAnnouncer } from './application/webhook-announcer';
import { WebhookDeliveryPruner } from './application/webhook-delivery-pruner';
import { WebhookAnnouncements, WebhookDeliveryQueue } from './ports/webhook-announcements';
import { WebhookOutbox } from './ports/webhook-outbox';

/** Writing deliveries (outbox) and handing them to the queue (the key's webhook secret API is the auth module's). */
@Module({
  imports: [AuthModule],
  providers: [
    { provide: WebhookAnnouncements, useClass: WebhookAnnouncer },
    { provide: WebhookDeliveryQueue, useClass: BullMqWebhookDeliveryQueue },
    // The outbox outside any transaction (the deliverer reads and records attempts one statement at a time).
    { provide: WebhookOutbox, inject: [getDataSourceToken()], useFactory: (dataSource: DataSource) => new TypeOrmWebhookOutbox(dataSource.manager) },
    WebhookDeliveryPruner,
  ],
  exports: [WebhookAnnouncements, WebhookDeliveryQueue, WebhookOutbox],
})
export class WebhooksModule {}
