import type { ThrottlerStorage } from '@nestjs/throttler';
import type { OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { fixedWindowRecord, ThrottlerStorageRecord } from './fixed-window';

/** INCR, and open the window on the first hit; PTTL tells what is left of it. One round trip, atomic. */
const INCREMENT = `
local hits = redis.call('INCR', KEYS[1])
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
return {hits, left}`;

/** Rate-limit counters in Redis (REDIS_URL set): keys expire by themselves, shared by every API process. */
export class RedisThrottlerStorage implements ThrottlerStorage, OnApplicationShutdown {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    redis.defineCommand('backdropRateLimitIncrement', { numberOfKeys: 1, lua: INCREMENT });
  }

  static connect(redisUrl: string, prefix: string): RedisThrottlerStorage {
    // Fail fast: a request must not hang on the limiter while Redis is away (the guard then lets it through).
    return new RedisThrottlerStorage(new Redis(redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false }), prefix);
  }

  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    const run = (this.redis as unknown as { backdropRateLimitIncrement(key: string, ttl: number): Promise<[number, number]> }).backdropRateLimitIncrement;
    const [hits, left] = await run.call(this.redis, `${this.prefix}:${key}`, ttl);
    return fixedWindowRecord(Number(hits), Number(left), limit);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
