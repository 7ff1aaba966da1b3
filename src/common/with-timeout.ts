/** Rejects when `work` has not settled within `ms` (the work itself goes on; callers must tolerate that). */
export function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** How long a request waits for the queue before leaving committed work to a relay's sweep. */
export const QUEUE_HANDOFF_TIMEOUT_MS = 3000;
