import Redis from 'ioredis';
import { WindowCounts, windowStartOf } from '../../domain/sliding-window';
import { RateLimitStore } from '../../ports/rate-limit-store';

/**
 * The sliding window of domain/sliding-window.ts in one script, so a request costs one round trip
 * and concurrent requests cannot interleave. The key is a hash {s: window start, p: previous, c: current}
 * that expires two windows after its last write. ARGV[4] requests of the key arrive together: the
 * script admits as many as the window holds, in order (what that many calls one after another would
 * admit), and returns the counts before them with how many it admitted. A request stamped before the
 * stored window is counted in it, at its start (countsAt).
 */
const CONSUME = `
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local requested = tonumber(ARGV[4])
local start = now - (now % window)
local stored = redis.call('HMGET', KEYS[1], 's', 'p', 'c')
local previous, current = 0, 0
local storedStart = tonumber(stored[1])
local elapsed = now - start
if storedStart and storedStart > start then
  start, elapsed = storedStart, 0
end
if storedStart == start then
  previous, current = tonumber(stored[2]), tonumber(stored[3])
elseif storedStart == start - window then
  previous = tonumber(stored[3])
end
local admitted = math.floor((limit * window - previous * (window - elapsed)) / window) - current
admitted = math.max(0, math.min(requested, admitted))
redis.call('HSET', KEYS[1], 's', start, 'p', previous, 'c', current + admitted)
redis.call('PEXPIRE', KEYS[1], 2 * window)
return {previous, current, elapsed, admitted, start}`;

/** release: one request given back to the window it was counted in (ARGV[1] its start), current or, once slid, previous */
const RELEASE = `
local start = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local stored = redis.call('HMGET', KEYS[1], 's', 'p', 'c')
local storedStart = tonumber(stored[1])
if storedStart == start and tonumber(stored[3]) > 0 then
  redis.call('HINCRBY', KEYS[1], 'c', -1)
elseif storedStart == start + window and tonumber(stored[2]) > 0 then
  redis.call('HINCRBY', KEYS[1], 'p', -1)
end
return 1`;

type Consume = (key: string, limit: number, windowMs: number, nowMs: number, requested: number) => Promise<[number, number, number, number, number]>;
type Release = (key: string, windowStart: number, windowMs: number) => Promise<number>;

/** Requests of one key, limit, window and millisecond that arrived in the same turn of the event loop. */
interface Batch {
  key: string;
  limit: number;
  windowMs: number;
  nowMs: number;
  waiting: Array<{ resolve: (counts: WindowCounts) => void; reject: (error: unknown) => void }>;
}

/**
 * Rate-limit counts in Redis (REDIS_URL set): one script call per key and turn of the event loop, keys
 * expire by themselves. The requests that arrived in one turn go out together, after its I/O
 * (setImmediate): those of one key (a client polling over several connections) as one call that
 * admits them in order, and every call in one write and one read with auto-pipelining. Each request
 * still waits for one round trip, but a busy process pays the call once per key and the system calls
 * once per turn, rather than each once per request.
 */
export class RedisRateLimitStore extends RateLimitStore {
  private readonly run: Consume;
  private readonly giveBack: Release;
  private batches = new Map<string, Batch>();
  private readonly send = (): void => {
    const batches = this.batches;
    this.batches = new Map();
    for (const batch of batches.values()) this.consumeTogether(batch);
  };

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    super();
    redis.defineCommand('backdropSlidingWindow', { numberOfKeys: 1, lua: CONSUME });
    redis.defineCommand('backdropSlidingWindowRelease', { numberOfKeys: 1, lua: RELEASE });
    const commands = redis as unknown as { backdropSlidingWindow: Consume; backdropSlidingWindowRelease: Release };
    this.run = commands.backdropSlidingWindow.bind(redis);
    this.giveBack = commands.backdropSlidingWindowRelease.bind(redis);
  }

  static connect(redisUrl: string, prefix: string): RedisRateLimitStore {
    // Fail fast: a request must not hang on the limiter while Redis is away (the guard then lets it through).
    // Auto-pipelining: the checks of requests handled in the same tick go out in one write, and their
    // answers come back in one read, instead of a write and a read each.
    const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: true, enableAutoPipelining: true });
    redis.on('error', () => undefined); // reported per request by the guard; ioredis reconnects by itself
    return new RedisRateLimitStore(redis, prefix);
  }

  consume(key: string, limit: number, windowMs: number, nowMs: number): Promise<WindowCounts> {
    const [window, now] = [Math.round(windowMs), Math.round(nowMs)];
    const name = `${key}\n${limit}\n${window}\n${now}`;
    return new Promise((resolve, reject) => {
      if (this.batches.size === 0) setImmediate(this.send);
      let batch = this.batches.get(name);
      if (!batch) this.batches.set(name, (batch = { key: `${this.prefix}:${key}`, limit, windowMs: window, nowMs: now, waiting: [] }));
      batch.waiting.push({ resolve, reject });
    });
  }

  private consumeTogether({ key, limit, windowMs, nowMs, waiting }: Batch): void {
    this.run(key, limit, windowMs, nowMs, waiting.length).then(
      (counts) => {
        const [previous, current, elapsedMs, admitted, windowStart] = counts.map(Number);
        waiting.forEach(({ resolve }, index) =>
          resolve({ previous, current: current + Math.min(index + 1, admitted), elapsedMs, admitted: index < admitted, windowStart }),
        );
      },
      (error: unknown) => waiting.forEach(({ reject }) => reject(error)),
    );
  }

  async release(key: string, windowMs: number, admittedAtMs: number): Promise<void> {
    const window = Math.round(windowMs);
    await this.giveBack(`${this.prefix}:${key}`, windowStartOf(Math.round(admittedAtMs), window), window);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
