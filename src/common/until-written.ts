/**
 * Waits between tries of a write that must land: about ten minutes in all, then it is given up. A
 * job's last word after the queue gave up on it (failed, its credits released) was tried once, and
 * a database away for those seconds left the job processing for good, its credits held.
 */
export const UNTIL_WRITTEN_DELAYS_MS: readonly number[] = [1000, 2000, 5000, 10_000, 30_000, ...Array<number>(9).fill(60_000)];

/**
 * Runs `write` until it resolves, waiting `delaysMs` between tries; false when every try failed. An
 * error `passes` says will not pass by waiting is thrown at once.
 */
export async function untilWritten(
  write: () => Promise<unknown>,
  onRetry: (error: unknown) => void,
  delaysMs: readonly number[] = UNTIL_WRITTEN_DELAYS_MS,
  passes: (error: unknown) => boolean = () => true,
): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    try {
      await write();
      return true;
    } catch (error) {
      if (!passes(error)) throw error;
      if (attempt >= delaysMs.length) return false;
      onRetry(error);
      await new Promise((resolve) => setTimeout(resolve, delaysMs[attempt]).unref());
    }
  }
}
