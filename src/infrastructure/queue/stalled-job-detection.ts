import { AppConfig } from '../../config/app-config';

/**
 * How a queue's workers find a job whose worker died (or whose hand-over a Redis restart lost):
 * BullMQ checks every QUEUE_STALLED_INTERVAL_MS, and a live worker's lock lasts `lockIntervals` of
 * those (at least 2 s), so another worker takes the job up within `lockIntervals + 1` intervals.
 * The jobs queue's runs last minutes and take two; a webhook delivery or a retention run takes one,
 * which at the 30 s default is BullMQ's own 30 s lock. Without these options a queue keeps BullMQ's
 * 30 s whatever the setting: a webhook held by a dead worker's lock waited up to a minute where the
 * suite sets 1 s (the sweeper cannot re-queue it while its queue job is active).
 */
export function stalledJobDetection(config: AppConfig, lockIntervals: 1 | 2): { stalledInterval: number; lockDuration: number } {
  const interval = config.env.QUEUE_STALLED_INTERVAL_MS;
  return { stalledInterval: interval, lockDuration: Math.max(lockIntervals * interval, 2000) };
}
