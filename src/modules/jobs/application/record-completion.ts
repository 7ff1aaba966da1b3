import { LoggerService } from '@nestjs/common';
import { isDependencyOutage } from '../../../common/errors/dependency-outage';
import { untilWritten } from '../../../common/until-written';
import { storageKeys } from '../../../common/storage-keys';
import { OUTPUT_EXTENSIONS } from '../../../contract/job-settings';
import { ObjectStorage } from '../../storage/ports/object-storage';
import { Job } from '../domain/job';
import { JobRepository } from '../ports/job.repository';
import { CompletedWork, JobLifecycle } from './job-lifecycle';

/** Where a job's output is stored. */
export function outputKeyOf(job: Job): string {
  return storageKeys.output(job.id, OUTPUT_EXTENSIONS[job.settings.outputFormat]);
}

export interface CompletionWriter {
  jobs: JobRepository;
  lifecycle: JobLifecycle;
  storage: ObjectStorage;
  logger: LoggerService;
}

/**
 * A finished job's completion, written until the database takes it (`delaysMs` between tries). Thrown
 * to the queue, a database away for half a minute as a job ended spent the message's attempts at once,
 * and the job was failed (its output, made, left in storage named by no job) or made again from the
 * start. The output goes when the job had ended meanwhile (a cancel); throws when the database stayed
 * away.
 */
export async function recordCompletion(writer: CompletionWriter, job: Job, outcome: CompletedWork, delaysMs: readonly number[]): Promise<void> {
  const write = async (): Promise<void> => {
    const current = await writer.jobs.findById(job.id);
    if (current?.status === 'completed') return; // an earlier try's commit landed before its answer was lost
    if (!(await writer.lifecycle.complete(current ?? job, outcome))) await writer.storage.delete(outcome.outputKey);
  };
  const onRetry = (error: unknown): void => writer.logger.warn(`could not record job ${job.id}'s completion yet (${error instanceof Error ? error.message : String(error)}); trying again`);
  if (!(await untilWritten(write, onRetry, delaysMs, isDependencyOutage))) throw new Error(`job ${job.id}'s completion could not be recorded: the database stayed unreachable`);
}
