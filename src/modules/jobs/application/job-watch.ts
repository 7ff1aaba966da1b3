import { JobRepository } from '../ports/job.repository';

const WATCH_INTERVAL_MS = 1000;

/** Aborts `stop` once the job is no longer processing (canceled, or ended elsewhere); clear the timer when done. */
export function watchWhileProcessing(jobs: JobRepository, jobId: string, stop: AbortController): NodeJS.Timeout {
  const timer = setInterval(() => {
    jobs.findById(jobId).then(
      (current) => {
        if (current && current.status !== 'processing') stop.abort();
      },
      () => undefined,
    );
  }, WATCH_INTERVAL_MS);
  timer.unref();
  return timer;
}
