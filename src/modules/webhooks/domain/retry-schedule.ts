/**
 * When to try a failed delivery again: the configured schedule (about 5 s, 30 s, 2 min, 10 min,
 * 1 h) with +-20% jitter, at least any Retry-After the receiver asked for; null once exhausted.
 * `attemptsMade` counts the attempts so far, the first one included. A Retry-After is honoured up
 * to the schedule's longest step: a receiver asking for years would keep its delivery pending, never
 * failed.
 */
export function nextRetryDelayMs(scheduleSeconds: readonly number[], attemptsMade: number, retryAfterSeconds: number | null, random: () => number = Math.random): number | null {
  const base = scheduleSeconds[attemptsMade - 1];
  if (base === undefined) return null;
  const jittered = base * 1000 * (0.8 + 0.4 * random());
  const askedFor = Math.min(retryAfterSeconds ?? 0, Math.max(...scheduleSeconds)) * 1000;
  return Math.round(Math.max(jittered, askedFor));
}

/** 2xx delivered; 410 Gone means the receiver asked us to stop; anything else is retried. */
export function classifyResponse(status: number): 'delivered' | 'stop' | 'retry' {
  if (status >= 200 && status < 300) return 'delivered';
  if (status === 410) return 'stop';
  return 'retry';
}
