import Redis from 'ioredis';
import type { WindowCounts } from '../../domain/sliding-window';
import { RateLimitStore } from '../../ports/rate-limit-store';

/**
 * The sliding window of domain/sliding-window.ts in one script, so a request costs one round trip
 * and concurrent requests cannot interleave. The key is a hash {s: window start, p: previous, c: current}
 * that expires two windows after its last write.
 */
const CONSUME = `
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local start = now - (now % window)
local stored = redis.call('HMGET', KEYS[1], 's', 'p', 'c')
local previous, current = 0, 0
local storedStart = tonumber(stored[1])
if storedStart == start then
  previous, current = tonumber(stored[2]), tonumber(stored[3])
elseif storedStart == start - window then
  previous = tonumber(stored[3])
end
local elapsed = now - start
local admitted = 0
if previous * (window - elapsed) + (current + 1) * window <= limit * window then
  admitted = 1
  current = current + 1
end
redis.call('HSET', KEYS[1], 's', start, 'p', previous, 'c', current)
redis.call('PEXPIRE', KEYS[1], 2 * window)
return {previous, current, elapsed, admitted}`;

type Consume = (key: string, limit: number, windowMs: number, nowMs: number) => Promise<[number, number, number, number]>;

/**
 * Rate-limit counts in Redis (REDIS_URL set): one script call per request, keys expire by themselves.
 * The calls of the requests that arrived in one turn of the event loop go out together, after its
 * I/O (setImmediate), in one write and one read with auto-pipelining: each request still waits for
 * one round trip, but a busy process pays the system calls once per turn rather than once per request.
 */
export class RedisRateLimitStore extends RateLimitStore {
  private readonly run: Consume;
  private waiting: Array<() => void> = [];
  private readonly send = (): void => {
    const calls = this.waiting;
    this.waiting = [];
    for (const call of calls) call();
  };

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    super();
    redis.defineCommand('backdropSlidingWindow', { numberOfKeys: 1, lua: CONSUME });
    const command = (redis as unknown as { backdropSlidingWindow: Consume }).backdropSlidingWindow;
    this.run = command.bind(redis);
  }

  static connect(redisUrl: string, prefix: string): RedisRateLimitStore {
    // Fail fast: a request must not hang on the limiter while Redis is away (the guard then lets it through).
    // Auto-pipelining: the checks of requests handled in the same tick go out in one write, and their
    // answers come back in one read, instead of a write and a read each.
    const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: true, enableAutoPipelining: true });
    redis.on('error', () => undefined); // reported per request by the guard; ioredis reconnects by itself
    return new RedisRateLimitStore(redis, prefix);
  }

  async consume(key: string, limit: number, windowMs: number, nowMs: number): Promise<WindowCounts> {
    const [previous, current, elapsedMs, admitted] = await new Promise<[number, number, number, number]>((resolve, reject) => {
      if (this.waiting.length === 0) setImmediate(this.send);
      this.waiting.push(() => void this.run(`${this.prefix}:${key}`, limit, Math.round(windowMs), Math.round(nowMs)).then(resolve, reject));
    });
    return { previous: Number(previous), current: Number(current), elapsedMs: Number(elapsedMs), admitted: Number(admitted) === 1 };
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
