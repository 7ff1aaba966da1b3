/**
 * The sliding-window counter every rate-limit store applies (Redis in Lua, Postgres in a function,
 * the in-memory store in TypeScript, all with the same integer arithmetic):
 *
 * Time is cut into windows of `windowMs` aligned on multiples of it. A key keeps two counts: the
 * requests admitted in the current window and in the one before. The requests "in the last
 * windowMs" are estimated as previous * (windowMs - elapsed) / windowMs + current, where elapsed is
 * how far the current window has run: the previous window's count fades out linearly as it slides
 * away. A request is admitted when that estimate plus itself stays within the limit, and only
 * admitted requests are counted (a client hammering a closed door does not keep it closed).
 */
export interface WindowCounts {
  /** requests admitted in the window before the current one */
  previous: number;
  /** requests admitted in the current window, this one included when admitted */
  current: number;
  /** ms since the current window began */
  elapsedMs: number;
  /** whether this request was admitted (and counted) */
  admitted: boolean;
  /** the start of the window it was counted in: the caller's own, or a later one (countsAt); a release gives it back there */
  windowStart: number;
}

export interface RateLimitOutcome {
  admitted: boolean;
  limit: number;
  /** what the window still admits after this request */
  remaining: number;
  /** ms until the current window ends and the counts slide */
  resetMs: number;
  /** when refused: ms until one more request would be admitted */
  retryAfterMs: number;
}

/** Start of the window that `nowMs` falls in. */
export function windowStartOf(nowMs: number, windowMs: number): number {
  return Math.floor(nowMs / windowMs) * windowMs;
}

/**
 * The counts as they stand at `windowStart`, from those stored for `storedStart`: the same window keeps
 * them, the next one turns the current count into the previous, anything later starts from nothing.
 */
export function slide(stored: { start: number; previous: number; current: number } | undefined, windowStart: number, windowMs: number): { previous: number; current: number } {
  if (!stored) return { previous: 0, current: 0 };
  if (stored.start === windowStart) return { previous: stored.previous, current: stored.current };
  if (stored.start === windowStart - windowMs) return { previous: stored.current, current: 0 };
  return { previous: 0, current: 0 };
}

/**
 * The window a request stamped `nowMs` is counted in, with its counts. One stamped before the stored
 * window (another replica's clock a little behind, or a request that read the time just before a
 * window's end and reached the store after one from just after it) is counted in the stored window
 * at its start, where the previous window weighs in full: taken as its own window, it found no
 * counts, was admitted, and moved the window back, so the next requests forgot a whole window's
 * count (10 of 12 admitted in a second against a limit of 5).
 */
export function countsAt(stored: { start: number; previous: number; current: number } | undefined, nowMs: number, windowMs: number): { start: number; elapsedMs: number; previous: number; current: number } {
  const start = windowStartOf(nowMs, windowMs);
  if (stored && stored.start > start) return { start: stored.start, elapsedMs: 0, previous: stored.previous, current: stored.current };
  return { start, elapsedMs: nowMs - start, ...slide(stored, start, windowMs) };
}

/** Whether one more request fits: previous * (windowMs - elapsed) + (current + 1) * windowMs <= limit * windowMs (integers, no rounding). */
export function admits(previous: number, current: number, elapsedMs: number, windowMs: number, limit: number): boolean {
  return previous * (windowMs - elapsedMs) + (current + 1) * windowMs <= limit * windowMs;
}

/** What the headers say about a decision. */
export function outcomeOf(counts: WindowCounts, windowMs: number, limit: number): RateLimitOutcome {
  const { previous, current, elapsedMs, admitted } = counts;
  const estimate = (previous * (windowMs - elapsedMs)) / windowMs + current;
  return {
    admitted,
    limit,
    remaining: Math.max(0, limit - Math.ceil(estimate - 1e-9)),
    resetMs: windowMs - elapsedMs,
    retryAfterMs: admitted ? 0 : msUntilAdmitted(previous, current, elapsedMs, windowMs, limit),
  };
}

/**
 * When the estimate will leave room for one more request. Within this window, the previous count's
 * share must fade enough; if the current count alone fills the limit, only the next window helps,
 * once the current count (then the previous) has faded enough.
 */
function msUntilAdmitted(previous: number, current: number, elapsedMs: number, windowMs: number, limit: number): number {
  if (current + 1 <= limit) {
    // previous * (windowMs - elapsed - t) / windowMs + current + 1 <= limit
    const t = windowMs - elapsedMs - ((limit - 1 - current) * windowMs) / previous;
    return Math.max(1, Math.ceil(t));
  }
  const intoNext = limit >= 1 && current > 0 ? windowMs - ((limit - 1) * windowMs) / current : windowMs;
  return Math.max(1, Math.ceil(windowMs - elapsedMs + intoNext));
}
