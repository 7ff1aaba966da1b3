import { Module } from '@nestjs/common';
import { AdminTokenGuard } from './adapters/http/admin-token.guard';
import { AdminController } from './adapters/http/admin.controller';
import { WebhookSecretController } from './adapters/http/webhook-secret.controller';
import { JobsErasureModule } from '../jobs/jobs-erasure.module';
import { AuthModule } from './auth.module';

/** The API role's key routes: /v1/admin/* and /v1/webhooks/secret. */
@Module({ imports: [AuthModule, JobsErasureModule], controllers: [AdminController, WebhookSecretController], providers: [AdminTokenGuard] })
export class AuthHttpModule {}
