import { Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { AuthModule } from '../auth/auth.module';
import { RATE_LIMITS, RateLimitGuard, RateLimits } from './adapters/http/rate-limit.guard';
import { PostgresRateLimitStore } from './adapters/postgres/postgres.rate-limit-store';
import { RedisRateLimitStore } from './adapters/redis/redis.rate-limit-store';
import { RateLimitStore } from './ports/rate-limit-store';

/**
 * Per-API-key limits (contract: Rate limits): the store every API process shares (Redis when
 * REDIS_URL is set, else Postgres) and the global guard, exported for the routes served ahead of
 * Nest's router (the job status read), which apply the same limit through it.
 */
@Module({
  imports: [AuthModule],
  providers: [
    {
      provide: RateLimitStore,
      inject: [APP_CONFIG, DataSource],
      useFactory: (config: AppConfig, dataSource: DataSource): RateLimitStore =>
        config.redisUrl ? RedisRateLimitStore.connect(config.redisUrl, `${config.env.QUEUE_NAMESPACE}:ratelimit`) : new PostgresRateLimitStore(dataSource),
    },
    {
      provide: RATE_LIMITS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): RateLimits => ({
        requests: config.env.RATE_LIMIT_PER_MINUTE,
        starts: config.env.RATE_LIMIT_STARTS_PER_MINUTE,
        windowMs: config.env.RATE_LIMIT_WINDOW_SECONDS * 1000,
      }),
    },
    RateLimitGuard,
    { provide: APP_GUARD, useExisting: RateLimitGuard },
  ],
  exports: [RateLimitGuard],
})
export class RateLimitModule implements OnApplicationShutdown {
  constructor(@Inject(RateLimitStore) private readonly store: RateLimitStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
