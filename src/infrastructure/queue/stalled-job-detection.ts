import { AppConfig } from '../../config/app-config';

/**
 * How every queue's workers find a job whose worker died: BullMQ checks every QUEUE_STALLED_INTERVAL_MS,
 * and a live worker's lock lasts two of those (at least 2 s), so another worker takes the job up
 * within about three intervals. Without these options a queue keeps BullMQ's 30 s, and a webhook
 * whose sender died waited up to a minute (the sweeper cannot re-queue it while its queue job is active).
 */
export function stalledJobDetection(config: AppConfig): { stalledInterval: number; lockDuration: number } {
  const interval = config.env.QUEUE_STALLED_INTERVAL_MS;
  return { stalledInterval: interval, lockDuration: Math.max(2 * interval, 2000) };
}
