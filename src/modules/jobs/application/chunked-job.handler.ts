import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../../config/app-config';
import { JobFailureCode } from '../../../common/errors/error-codes';
import { UNTIL_WRITTEN_DELAYS_MS } from '../../../common/until-written';
import { storageKeys } from '../../../common/storage-keys';
import { OUTPUT_EXTENSIONS } from '../../../contract/job-settings';
import { ObjectStorage } from '../../storage/ports/object-storage';
import { HandingOver, WorkerFailure, WorkerGateway } from '../../worker-gateway/ports/worker-gateway';
import { ChunkRange, chunkFormatOf } from '../domain/chunk-plan';
import { Job, settingsToRun } from '../domain/job';
import { ChunkDispatcher, ChunkOutcome, ChunkTask, JoinTask } from '../ports/chunk-dispatcher';
import { ChunkJoiner } from '../ports/chunk-joiner';
import { JobRepository } from '../ports/job.repository';
import { HandedBack } from './handed-back';
import { JobLifecycle } from './job-lifecycle';
import { CompletionWriter, outputKeyOf, recordCompletion } from './record-completion';
import { watchWhileProcessing } from './job-watch';

const PROGRESS_WRITE_INTERVAL_MS = 500;
/** A chunk failing for these would fail again: the job fails at once, the chunk is not retried. */
const FINAL_FAILURES: readonly JobFailureCode[] = ['input_invalid', 'input_too_long', 'input_unreachable', 'canceled'];

/**
 * A long job in chunks: dispatched as a flow (the chunks, then the join that waits on them), each
 * chunk run through the WorkerGateway by whichever worker takes it (local engine or remote workers),
 * then joined into the one output. The job itself moves once: credits were reserved for the whole job
 * before the split, and the join completes it (one charge, one `completed` webhook); a chunk that runs
 * out of attempts fails it (one `failed` webhook). A canceled job stops every chunk: each one watches
 * the job's status, and those not yet started find it ended and do nothing.
 */
@Injectable()
export class ChunkedJobHandler {
  private readonly logger = new Logger(ChunkedJobHandler.name);
  private readonly running = new Set<AbortController>();
  private shuttingDown = false;
  /** the waits between tries of a joined job's completion while the database is away (a test shortens them) */
  completionRetryDelaysMs: readonly number[] = UNTIL_WRITTEN_DELAYS_MS;

  constructor(
    private readonly jobs: JobRepository,
    private readonly lifecycle: JobLifecycle,
    private readonly gateway: WorkerGateway,
    private readonly joiner: ChunkJoiner,
    private readonly dispatcher: ChunkDispatcher,
    private readonly storage: ObjectStorage,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private get completionWriter(): CompletionWriter {
    return { jobs: this.jobs, lifecycle: this.lifecycle, storage: this.storage, logger: this.logger };
  }

  /** Queues the chunks and their join; the inputs now belong to the join, which deletes them. */
  async split(job: Job, inputKey: string, backgroundImageKey: string | null, ranges: ChunkRange[]): Promise<void> {
    const format = chunkFormatOf(job.settings.outputFormat);
    const chunkKeys = ranges.map((_, index) => storageKeys.chunk(job.id, index, OUTPUT_EXTENSIONS[format]));
    const chunks: ChunkTask[] = ranges.map(({ share, ...segment }, index) => ({
      jobId: job.id,
      index,
      inputKey,
      backgroundImageKey,
      chunkKey: chunkKeys[index],
      segment,
      share,
      chunksInFlow: chunkKeys.length,
    }));
    await this.dispatcher.dispatch({ jobId: job.id, inputKey, backgroundImageKey, chunkKeys }, chunks);
    this.logger.log(`job ${job.id} split into ${chunks.length} chunks`);
  }

  /** Runs one chunk; null when the job had ended (nothing to do). Throws for the queue to retry it. */
  async runChunk(task: ChunkTask): Promise<ChunkOutcome | null> {
    const job = await this.jobs.findById(task.jobId);
    if (!job || job.status !== 'processing') {
      // canceled while the chunk was handed over: a run an earlier attempt left going is stopped
      if (job) await this.gateway.giveUp({ jobId: job.id, outputKey: task.chunkKey });
      return null;
    }
    const stop = new AbortController();
    const watcher = watchWhileProcessing(this.jobs, job.id, stop, this.lifecycle);
    this.running.add(stop);
    const progress = this.progressShare(job.id, task.index, task.share);
    try {
      const outcome = await this.gateway.process(
        {
          jobId: job.id,
          inputKey: task.inputKey,
          outputKey: task.chunkKey,
          backgroundImageKey: task.backgroundImageKey,
          settings: { ...settingsToRun(job), outputFormat: chunkFormatOf(job.settings.outputFormat) },
          maxDurationSeconds: this.config.env.MAX_VIDEO_SECONDS,
          mediaLimits: this.config.mediaLimits,
          segment: task.segment,
        },
        progress.report,
        stop.signal,
      );
      await progress.finish();
      if ((await this.jobs.findById(job.id))?.status !== 'processing') {
        await this.storage.delete(task.chunkKey); // the job ended while this chunk ran: nobody joins it
        return null;
      }
      return { index: task.index, frames: outcome.frames, durationSeconds: outcome.durationSeconds, notes: outcome.notes };
    } catch (error) {
      if (this.shuttingDown) throw new HandedBack(`chunk ${task.index} of job ${job.id} handed back: the worker is shutting down`);
      if (stop.signal.aborted) {
        // the job was canceled or ended elsewhere: nobody joins what a remote worker stored meanwhile
        await this.storage.delete(task.chunkKey).catch(() => undefined);
        return null;
      }
      if (error instanceof WorkerFailure && FINAL_FAILURES.includes(error.code)) {
        await this.failJob(job.id, error.code, error.message);
        return null;
      }
      throw error;
    } finally {
      clearInterval(watcher);
      this.running.delete(stop);
    }
  }

  /** Every chunk succeeded (or found the job ended): join them into the output and complete the job. */
  async join(task: JoinTask, outcomes: Array<ChunkOutcome | null>): Promise<void> {
    const job = await this.jobs.findById(task.jobId);
    const done = outcomes.filter((outcome): outcome is ChunkOutcome => outcome !== null).sort((a, b) => a.index - b.index);
    if (!job || job.status !== 'processing' || done.length !== task.chunkKeys.length) {
      await this.cleanUp(task);
      return;
    }
    const outputKey = outputKeyOf(job);
    const stop = new AbortController();
    const watcher = watchWhileProcessing(this.jobs, job.id, stop, this.lifecycle);
    this.running.add(stop);
    try {
      await this.joiner.join({ inputKey: task.inputKey, chunkKeys: task.chunkKeys, chunkDurations: done.map((outcome) => outcome.durationSeconds), outputKey, settings: settingsToRun(job), mediaLimits: this.config.mediaLimits }, stop.signal);
    } catch (error) {
      // a join (minutes for a GIF) stopped by the shutdown goes back to the queue, its chunks kept: run
      // on past the grace, the process was killed under it, and a third such stop failed the job
      if (stop.signal.reason instanceof HandingOver) throw new HandedBack(`the join of job ${job.id} handed back: the worker is shutting down`);
      if (stop.signal.aborted) return this.cleanUp(task);
      throw error;
    } finally {
      clearInterval(watcher);
      this.running.delete(stop);
    }
    const notes = [...new Set(done.flatMap((outcome) => outcome.notes))];
    const frames = done.reduce((sum, outcome) => sum + outcome.frames, 0);
    const durationSeconds = done.reduce((sum, outcome) => sum + outcome.durationSeconds, 0);
    await recordCompletion(this.completionWriter, job, { outputKey, durationSeconds, frames, notes }, this.completionRetryDelaysMs);
    await this.cleanUp(task);
  }

  /** A chunk ran out of attempts: the job fails (its other chunks see that and stop). */
  async chunkGaveUp(task: ChunkTask, error: Error): Promise<void> {
    const code = error instanceof WorkerFailure ? error.code : 'worker_failed';
    const message = error instanceof WorkerFailure ? error.message : `Processing failed: chunk ${task.index + 1} kept failing`;
    this.logger.error(`chunk ${task.index} of job ${task.jobId} gave up: ${error.message}`);
    await this.failJob(task.jobId, code, message);
    await this.cleanUp({ jobId: task.jobId, inputKey: task.inputKey, backgroundImageKey: task.backgroundImageKey, chunkKeys: flowChunkKeys(task) });
  }

  /**
   * The join ran out of attempts (or its chunks failed it): the job must not stay processing, and an
   * output a join made goes with it.
   */
  async joinGaveUp(task: JoinTask, error: Error): Promise<void> {
    const code = error instanceof WorkerFailure ? error.code : 'worker_failed';
    await this.failJob(task.jobId, code, `Joining the chunks failed: ${error.message}`);
    const job = await this.jobs.findById(task.jobId);
    if (job && job.status !== 'completed') await this.storage.delete(outputKeyOf(job)).catch(() => undefined);
    await this.cleanUp(task);
  }

  beginShutdown(graceMs: number): void {
    this.shuttingDown = true;
    setTimeout(() => this.running.forEach((stop) => stop.abort(new HandingOver('the worker is shutting down'))), graceMs).unref();
  }

  private async failJob(jobId: string, code: JobFailureCode, message: string): Promise<void> {
    const job = await this.jobs.findById(jobId);
    if (job && job.status === 'processing') await this.lifecycle.fail(job, code, message);
  }

  /** The chunks' outputs always go; the inputs too when they were fetched for this job (not an upload). */
  private async cleanUp(task: JoinTask): Promise<void> {
    const keys = [...task.chunkKeys, task.inputKey, task.backgroundImageKey].filter((key): key is string => !!key && (key.startsWith('chunks/') || key.startsWith('inputs/')));
    await Promise.all(keys.map((key) => this.storage.delete(key).catch(() => undefined)));
  }

  /**
   * The chunk's share of the job's progress, recorded as it goes (throttled). The job keeps each
   * chunk's best (recordChunkProgress): a retry of a failed chunk counts from where the best attempt got.
   */
  private progressShare(jobId: string, chunk: number, share: number) {
    let lastWrite = 0;
    const record = (done: number): Promise<unknown> => this.jobs.recordChunkProgress(jobId, chunk, done).catch(() => undefined);
    return {
      report: (percent: number): void => {
        const now = performance.now();
        if (now - lastWrite < PROGRESS_WRITE_INTERVAL_MS) return;
        lastWrite = now;
        void record((Math.min(100, Math.max(0, percent)) / 100) * share);
      },
      finish: () => record(share),
    };
  }
}

/** the keys of every chunk output in `task`'s flow: its own key with each index */
function flowChunkKeys(task: ChunkTask): string[] {
  if (task.flowChunkKeys) return task.flowChunkKeys;
  const extension = task.chunkKey.slice(task.chunkKey.lastIndexOf('.') + 1);
  return Array.from({ length: task.chunksInFlow }, (_, index) => storageKeys.chunk(task.jobId, index, extension));
}
