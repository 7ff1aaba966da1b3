import { DelayedError, Job as QueueJob } from 'bullmq';
import { isDependencyOutage } from '../../../../common/errors/dependency-outage';
import { HandedBack } from '../../application/handed-back';

/** how long a message waits out a service it needs (its database, storage) without spending attempts */
export const OUTAGE_PATIENCE_MS = 30 * 60_000;
/** how soon a message stopped by such an outage runs again, at first */
export const OUTAGE_RETRY_DELAY_MS = 10_000;
/** the longest wait between its runs as the outage goes on */
export const OUTAGE_MAX_RETRY_DELAY_MS = 120_000;

/**
 * The wait before a message stopped by an outage runs again: 10 s at first, then half the time the
 * outage has lasted, at most 2 minutes. A failover of a minute or two is still met within a minute;
 * a disk that stays full no longer has each URL job fetch its whole input again every 10 s (180
 * fetches of up to 500 MB from the client's server in half an hour; about 25 now).
 */
export function outageRetryDelayMs(outageForMs: number, firstMs = OUTAGE_RETRY_DELAY_MS, longestMs = OUTAGE_MAX_RETRY_DELAY_MS): number {
  return Math.round(Math.min(longestMs, Math.max(firstMs, outageForMs / 2)));
}

/**
 * When the outage that stopped the message last began, if that outage still goes on: its last stop
 * came within twice the longest wait. A stop long after (the message ran on meanwhile) is a new
 * outage, waited 10 s at first and given its own patience: counted from the first outage, a second
 * one twenty minutes later waited 2 minutes at once, with 10 minutes of patience left.
 */
function ongoingOutageSince(data: { outageSince?: unknown; outageStoppedAt?: unknown } | undefined, now: number): number | null {
  const { outageSince, outageStoppedAt } = data ?? {};
  if (typeof outageSince !== 'number') return null;
  // a message stopped by a version before outageStoppedAt: its outage is taken as going on
  const lastStop = typeof outageStoppedAt === 'number' ? outageStoppedAt : now;
  return now - lastStop <= 2 * OUTAGE_MAX_RETRY_DELAY_MS ? outageSince : null;
}

/**
 * Runs a message's work. Work a shutting-down worker hands back goes back to the queue at once as a
 * delayed message (BullMQ's moveToDelayed skips the attempt count), so a job or chunk caught by
 * deployments does not run out of attempts that are meant for failures. Work stopped because a
 * service it needs cannot be reached goes back the same way (outageRetryDelayMs) for up to
 * OUTAGE_PATIENCE_MS from the first such stop: counted, a database failover of a minute or two
 * failed the whole backlog (5 attempts, 30 s) and every long job (a chunk's 3 attempts, 3 s). Anything
 * else, and an outage past its patience, is thrown as it was: a retry, counted.
 */
export async function handingBack<T>(message: QueueJob, token: string | undefined, work: () => Promise<T>, outage = { patienceMs: OUTAGE_PATIENCE_MS, retryDelayMs: OUTAGE_RETRY_DELAY_MS }): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!token) throw error;
    if (error instanceof HandedBack) {
      await message.moveToDelayed(Date.now() + error.afterMs, token);
      throw new DelayedError(error.message);
    }
    if (!isDependencyOutage(error)) throw error;
    const now = Date.now();
    const outageSince = ongoingOutageSince(message.data, now) ?? now;
    if (now - outageSince >= outage.patienceMs) throw error;
    await message.updateData({ ...message.data, outageSince, outageStoppedAt: now });
    const delayMs = outageRetryDelayMs(now - outageSince, outage.retryDelayMs);
    await message.moveToDelayed(Date.now() + delayMs, token);
    throw new DelayedError(`a service it needs could not be reached (${(error as Error).message}): runs again in ${Math.round(delayMs / 1000)} s`);
  }
}
