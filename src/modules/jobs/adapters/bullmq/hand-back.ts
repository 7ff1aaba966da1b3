import { DelayedError, Job as QueueJob } from 'bullmq';
import { HandedBack } from '../../application/handed-back';

/**
 * Runs a message's work. Work a shutting-down worker hands back goes back to the queue at once as a
 * delayed message (BullMQ's moveToDelayed skips the attempt count), so a job or chunk caught by
 * deployments does not run out of attempts that are meant for failures. Anything else is thrown
 * as it was: a retry, counted.
 */
export async function handingBack<T>(message: QueueJob, token: string | undefined, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof HandedBack) || !token) throw error;
    await message.moveToDelayed(Date.now(), token);
    throw new DelayedError(error.message);
  }
}
