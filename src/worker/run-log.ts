import type { Logger } from 'pino';
import { withoutUrlSecrets } from '../common/logging/redact';
import { runKeyOf } from '../common/worker-protocol/runpod-protocol';
import { JobFailure, JobProcessor } from './job-queue';

/**
 * `process` with a JSON line as each run starts and ends: the API's job (and chunk), how it ended,
 * its error code and reason, and how long it took. The reason loses its URLs' queries (the signed
 * input and output URLs); the URLs themselves are never logged.
 */
export function loggedRuns(process: JobProcessor, logger: Logger): JobProcessor {
  return async (input, context) => {
    const run = { job_id: input.job_id, run: runKeyOf(input), model: input.settings.model };
    const started = Date.now();
    logger.info(run, 'run started');
    try {
      const output = await process(input, context);
      logger.info({ ...run, duration_ms: Date.now() - started }, 'run completed');
      return output;
    } catch (error) {
      const ended = { ...run, duration_ms: Date.now() - started, error_code: error instanceof JobFailure ? error.code : undefined, error: withoutUrlSecrets((error as Error).message) };
      if (context.signal.aborted) logger.info(ended, 'run stopped');
      else logger.warn(ended, 'run failed');
      throw error;
    }
  };
}
