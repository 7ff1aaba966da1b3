/**
 * Wraps a periodic task so that a call while the last one still runs joins it instead of starting
 * another: a sweep that waits on a queue that does not answer (up to QUEUE_HANDOFF_TIMEOUT_MS an
 * item) outlasts its interval, and without this each tick started one more beside it.
 */
export function oneAtATime<T>(task: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | null = null;
  return () =>
    (running ??= task().finally(() => {
      running = null;
    }));
}
