import { oneAtATime } from '../../../common/one-at-a-time';
import { JobRepository } from '../ports/job.repository';
import type { JobLifecycle } from './job-lifecycle';

const WATCH_INTERVAL_MS = 1000;

/**
 * Aborts `stop` once the job is no longer processing (canceled, ended elsewhere, or ended by `lifecycle`
 * because its key was disabled); clear the timer when done. One read at a time: on a database that
 * hangs, a read a second would pile up.
 */
export function watchWhileProcessing(jobs: JobRepository, jobId: string, stop: AbortController, lifecycle: Pick<JobLifecycle, 'endIfKeyDisabled'>): NodeJS.Timeout {
  const check = oneAtATime(async () => {
    const current = await jobs.findById(jobId);
    if (!current) return;
    if (current.status !== 'processing' || (await lifecycle.endIfKeyDisabled(current))) stop.abort();
  });
  const timer = setInterval(() => void check().catch(() => undefined), WATCH_INTERVAL_MS);
  timer.unref();
  return timer;
}
