import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { WebhookSecretController } from './adapters/http/webhook-secret.controller';
import { WebhookAnnouncer } from './application/webhook-announcer';
import { WebhookRelay } from './application/webhook-relay';

/** Writing deliveries (outbox) and handing them to the queue; the secret API. */
@Module({
  imports: [AuthModule],
  controllers: [WebhookSecretController],
  providers: [WebhookAnnouncer, WebhookRelay],
  exports: [WebhookAnnouncer, WebhookRelay],
})
export class WebhooksModule {}
