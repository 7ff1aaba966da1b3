import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from './config/app-config';
import { CoreModule } from './composition/core.module';
import { dataSourceOptions } from './composition/data-source';
import { QueueModule } from './infrastructure/queue/queue.module';
import { InstanceSecrets } from './infrastructure/secrets/instance-secrets';
import { AuthHttpModule } from './modules/auth/auth-http.module';
import { HealthModule } from './modules/health/health.module';
import { MetricsModule } from './modules/metrics/metrics.module';
import { IdempotencyModule } from './modules/idempotency/idempotency.module';
import { JobsWorkerModule } from './modules/jobs/jobs-worker.module';
import { JobsHttpModule } from './modules/jobs/jobs-http.module';
import { ModelsModule } from './modules/models/models.module';
import { PricingModule } from './modules/pricing/pricing.module';
import { RateLimitModule } from './modules/rate-limit/rate-limit.module';
import { StorageModule } from './modules/storage/storage.module';
import { UploadsModule } from './modules/uploads/uploads.module';
import { RetentionModule } from './modules/retention/retention.module';
import { UsageModule } from './modules/usage/usage.module';
import { WebhooksModule } from './modules/webhooks/webhooks.module';
import { WebhooksWorkerModule } from './modules/webhooks/webhooks-worker.module';
import { WebModule } from './modules/web/web.module';
import { WorkerCallbacksModule } from './modules/worker-gateway/adapters/http/worker-callbacks.module';

export interface AppModuleOptions {
  config: AppConfig;
  /** the Postgres of the data and (without REDIS_URL) of the queues; absent: no connection is made (test/support/in-memory-app.ts supplies every adapter that needs one) */
  databaseUrl?: string;
  secrets: InstanceSecrets;
}

/** The whole application; which parts run follows ROLE (api, worker or all). */
@Module({})
export class AppModule {
  static forRoot({ config, databaseUrl, secrets }: AppModuleOptions): DynamicModule {
    const serveApi = config.role !== 'worker';
    const runWorkers = config.role !== 'api';
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(config, secrets),
        ...(databaseUrl ? [TypeOrmModule.forRoot(dataSourceOptions(databaseUrl)), QueueModule.forRoot(config, databaseUrl)] : []),
        HealthModule,
        MetricsModule,
        ...(serveApi ? [AuthHttpModule, UploadsModule, JobsHttpModule, StorageModule, PricingModule, ModelsModule, UsageModule, WebhooksModule, WebModule] : []),
        ...(serveApi ? [RateLimitModule, IdempotencyModule, WorkerCallbacksModule] : []),
        ...(runWorkers ? [JobsWorkerModule.forRoot(config), WebhooksWorkerModule.forRoot(config), RetentionModule.forRoot(config)] : []),
      ],
    };
  }
}
