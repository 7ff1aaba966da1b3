import { Module, OnApplicationShutdown } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { Clock } from '../../common/clock';
import { PgNotifyApiKeyChanges } from './adapters/postgres/pg-notify.api-key-changes';
import { ApiKeyCache } from './application/api-key-cache';
import { ApiKeyChanges } from './ports/api-key-changes';
import { ApiKeyAuthenticator, ApiKeyGuard } from '../../common/http/api-key-auth';
import { ApiKeyRecord } from './adapters/typeorm/api-key.record';
import { TypeOrmApiKeyRepository } from './adapters/typeorm/typeorm.api-key.repository';
import { ApiKeysService } from './application/api-keys.service';
import { WebhookSecretOverlap } from './application/webhook-secret-overlap';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { ApiKeyRepository } from './ports/api-key.repository';

/** API keys: issuing, authenticating, caching; what every role needs of them (the routes are AuthHttpModule's). */
@Module({
  imports: [TypeOrmModule.forFeature([ApiKeyRecord])],
  providers: [ApiKeysService, { provide: ApiKeyAuthenticator, useExisting: ApiKeysService }, ApiKeyGuard, { provide: ApiKeyRepository, useClass: TypeOrmApiKeyRepository },
    {
      provide: ApiKeyChanges,
      inject: [DataSource],
      useFactory: async (dataSource: DataSource): Promise<ApiKeyChanges> => {
        const changes = new PgNotifyApiKeyChanges((dataSource.options as { url: string }).url);
        await changes.start();
        return changes;
      },
    },
    { provide: ApiKeyCache, inject: [ApiKeyChanges, Clock], useFactory: (changes: ApiKeyChanges, clock: Clock) => new ApiKeyCache(changes, clock) },
    { provide: WebhookSecretOverlap, inject: [Clock, APP_CONFIG], useFactory: (clock: Clock, config: AppConfig) => new WebhookSecretOverlap(clock, config.env.WEBHOOK_SECRET_OVERLAP_SECONDS * 1000) },
  ],
  exports: [ApiKeysService, ApiKeyAuthenticator, ApiKeyGuard, ApiKeyRepository],
})
export class AuthModule implements OnApplicationShutdown {
  constructor(private readonly changes: ApiKeyChanges) {}

  async onApplicationShutdown(): Promise<void> {
    await this.changes.close();
  }
}
