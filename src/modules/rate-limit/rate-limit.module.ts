import { DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule, ThrottlerStorage } from '@nestjs/throttler';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { ApiKeyThrottlerGuard, REQUESTS_THROTTLER, STARTS_THROTTLER } from './adapters/http/api-key-throttler.guard';
import { PostgresThrottlerStorage } from './adapters/storage/postgres.throttler-storage';
import { RedisThrottlerStorage } from './adapters/storage/redis.throttler-storage';

/** The store every API process shares: Redis when REDIS_URL is set, otherwise the application's Postgres. */
export const RATE_LIMIT_STORE = Symbol('RATE_LIMIT_STORE');

@Module({
  providers: [
    {
      provide: RATE_LIMIT_STORE,
      inject: [APP_CONFIG, DataSource],
      useFactory: (config: AppConfig, dataSource: DataSource): ThrottlerStorage =>
        config.redisUrl ? RedisThrottlerStorage.connect(config.redisUrl, `${config.env.QUEUE_NAMESPACE}:ratelimit`) : new PostgresThrottlerStorage(dataSource),
    },
  ],
  exports: [RATE_LIMIT_STORE],
})
class RateLimitStoreModule {}

/** Per-API-key limits (contract: Rate limits) as a global guard. */
@Module({})
export class RateLimitModule {
  static forRoot(): DynamicModule {
    return {
      module: RateLimitModule,
      imports: [
        ThrottlerModule.forRootAsync({
          imports: [RateLimitStoreModule],
          inject: [APP_CONFIG, RATE_LIMIT_STORE],
          useFactory: (config: AppConfig, storage: ThrottlerStorage) => {
            const ttl = config.env.RATE_LIMIT_WINDOW_SECONDS * 1000;
            return {
              storage,
              throttlers: [
                { name: REQUESTS_THROTTLER, ttl, limit: config.env.RATE_LIMIT_PER_MINUTE },
                { name: STARTS_THROTTLER, ttl, limit: config.env.RATE_LIMIT_STARTS_PER_MINUTE },
              ],
            };
          },
        }),
      ],
      providers: [{ provide: APP_GUARD, useClass: ApiKeyThrottlerGuard }],
    };
  }
}
