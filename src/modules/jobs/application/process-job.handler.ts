import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../../config/app-config';
import { JobFailureCode } from '../../../common/errors/error-codes';
import { DomainError } from '../../../common/errors/domain-error';
import { UNTIL_WRITTEN_DELAYS_MS } from '../../../common/until-written';
import { OutboundHttp, OutboundRequestFailed, OutboundRequestRefused } from '../../../common/outbound-http';
import { storageKeys } from '../../../common/storage-keys';
import { ObjectStorage } from '../../storage/ports/object-storage';
import { UploadedVideos } from '../../uploads/ports/uploaded-videos';
import { HandingOver, WorkerFailure, WorkerGateway } from '../../worker-gateway/ports/worker-gateway';
import { isRefusal, VideoProbe, VideoTiming } from '../../uploads/ports/video-probe';
import { Job, settingsToRun } from '../domain/job';
import { HandedBack } from './handed-back';
import { JobLifecycle } from './job-lifecycle';
import { CompletionWriter, outputKeyOf, recordCompletion } from './record-completion';
import { isTerminal } from '../domain/job-status';
import { JobRepository } from '../ports/job.repository';
import { planChunks } from '../domain/chunk-plan';
import { overLengthLimit } from '../domain/job-cost';
import { decidesFromWholeClip } from '../domain/pro-prompt';
import { ChunkedJobHandler } from './chunked-job.handler';
import { watchWhileProcessing } from './job-watch';
import { peek } from '../../../common/streams/peek';
import { PassThrough } from 'node:stream';

const PROGRESS_WRITE_INTERVAL_MS = 500;
/** how long a job past its key's fair share waits before it is looked at again */
export const FAIR_SHARE_WAIT_MS = 5000;

class InputFailure extends WorkerFailure {}

/** where a job's video and background image fetched from their URLs are kept while it runs */
function fetchedInputKeys(jobId: string): { video: string; backgroundImage: string } {
  return { video: storageKeys.fetchedVideo(jobId), backgroundImage: storageKeys.fetchedBackground(jobId) };
}

/**
 * Preparation stopped by the service's own trouble (a database or storage that did not answer), not
 * by the job's input: thrown on to the queue, which retries the job with backoff.
 */
class ServiceTrouble extends Error {}

/**
 * Runs one started job to its end: fetch the input, hand it to the WorkerGateway, record progress and
 * the outcome. Safe to run twice for the same job (at-least-once delivery): a job already past
 * `pending` by another run is left alone, and every state change is a compare-and-set.
 */
@Injectable()
export class ProcessJobHandler {
  private readonly logger = new Logger(ProcessJobHandler.name);
  private readonly running = new Set<AbortController>();
  private shuttingDown = false;
  /** the waits between tries of a finished job's completion while the database is away (a test shortens them) */
  completionRetryDelaysMs: readonly number[] = UNTIL_WRITTEN_DELAYS_MS;

  constructor(
    private readonly jobs: JobRepository,
    private readonly lifecycle: JobLifecycle,
    private readonly probe: VideoProbe,
    private readonly gateway: WorkerGateway,
    private readonly storage: ObjectStorage,
    private readonly uploads: UploadedVideos,
    private readonly outbound: OutboundHttp,
    private readonly chunked: ChunkedJobHandler,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private get completionWriter(): CompletionWriter {
    return { jobs: this.jobs, lifecycle: this.lifecycle, storage: this.storage, logger: this.logger };
  }

  async handle(jobId: string, signal?: AbortSignal): Promise<void> {
    const job = await this.jobs.findById(jobId);
    if (!job) return;
    // canceled while it was handed over: a run an earlier attempt left going is stopped
    if (isTerminal(job.status)) return this.gateway.giveUp({ jobId: job.id, outputKey: outputKeyOf(job) });
    // a run an earlier attempt left going (a remote one) is stopped with the job
    if (await this.lifecycle.endIfKeyDisabled(job)) return this.gateway.giveUp({ jobId: job.id, outputKey: outputKeyOf(job) });
    if (job.status === 'pending') await this.waitForFairShare(job);
    const running = job.status === 'pending' ? await this.lifecycle.pickUp(job) : job;
    if (!running || running.status !== 'processing') return;
    let outcome: { outputKey: string; durationSeconds: number; frames: number; notes: string[] } | null;
    const stop = new AbortController();
    signal?.addEventListener('abort', () => stop.abort(signal.reason), { once: true });
    const watcher = watchWhileProcessing(this.jobs, running.id, stop, this.lifecycle);
    this.running.add(stop);
    const startedAt = performance.now();
    try {
      outcome = await this.run(running, stop.signal);
    } catch (error) {
      // Stopped by this worker's shutdown: the job is handed back to the queue, not failed.
      if (this.shuttingDown) throw new HandedBack(`job ${running.id} handed back: the worker is shutting down`);
      if (error instanceof ServiceTrouble) throw error.cause;
      const failure = this.describeFailure(error);
      if (failure.code === 'worker_failed') this.logger.error(`job ${running.id} failed: ${(error as Error).stack ?? error}`);
      await this.lifecycle.fail(running, failure.code, failure.message);
      return;
    } finally {
      clearInterval(watcher);
      this.running.delete(stop);
    }
    if (!outcome) return;
    await recordCompletion(this.completionWriter, running, { ...outcome, processingSeconds: (performance.now() - startedAt) / 1000 }, this.completionRetryDelaysMs);
  }

  /**
   * A key with FAIR_SHARE_JOBS_PER_KEY jobs processing lets another key's waiting job go first: its
   * job goes back to the queue for FAIR_SHARE_WAIT_MS (no attempt spent), and the worker takes the
   * next. Without it one key's backlog (or its inputs fetched slowly) held every worker, and the other
   * keys' jobs waited behind all of it. A key alone may use every worker.
   */
  private async waitForFairShare(job: Job): Promise<void> {
    const share = this.config.env.FAIR_SHARE_JOBS_PER_KEY;
    if (await this.jobs.overFairShare(job.apiKeyId, share)) {
      throw new HandedBack(`job ${job.id} waits its turn: its key has ${share} or more jobs processing while another key's job waits`, FAIR_SHARE_WAIT_MS);
    }
  }

  /**
   * SIGTERM: running jobs get `graceMs` to finish; then they are stopped and handed back to the queue
   * (the queue retries them on another worker), never marked failed.
   */
  beginShutdown(graceMs: number): void {
    this.shuttingDown = true;
    setTimeout(() => this.running.forEach((stop) => stop.abort(new HandingOver('the worker is shutting down'))), graceMs).unref();
  }

  /**
   * The queue gave up on this job (its workers kept dying, or the service it needed stayed away): end
   * it rather than leave it processing, and remove what was fetched for it, which no later run reads.
   */
  async abandon(jobId: string, reason: string): Promise<void> {
    const job = await this.jobs.findById(jobId);
    if (job && !isTerminal(job.status)) await this.lifecycle.fail(job, 'worker_failed', `Processing was abandoned: ${reason}`);
    const fetched = fetchedInputKeys(jobId);
    await Promise.all([fetched.video, fetched.backgroundImage].map((key) => this.storage.delete(key)));
  }

  /**
   * Null when the job ended before processing (its input could not be paid for) or was split into
   * chunks (the join completes it).
   */
  private async run(job: Job, signal?: AbortSignal): Promise<{ outputKey: string; durationSeconds: number; frames: number; notes: string[] } | null> {
    const prepared = await this.prepare(job, signal).catch((error: unknown) => {
      throw error instanceof WorkerFailure ? error : new ServiceTrouble(`job ${job.id} could not be prepared`, { cause: error });
    });
    if (!prepared) return null;
    const { inputKey, backgroundImageKey } = prepared;
    const outputKey = outputKeyOf(job);
    let lastWrite = 0;
    const reportProgress = (percent: number): void => {
      const now = performance.now();
      if (now - lastWrite < PROGRESS_WRITE_INTERVAL_MS) return;
      lastWrite = now;
      this.jobs.updateProgress(job.id, Math.min(99, Math.max(0, Math.round(percent * 10) / 10))).catch(() => undefined);
    };
    const task = { jobId: job.id, inputKey, outputKey, backgroundImageKey, settings: settingsToRun(job), maxDurationSeconds: this.config.env.MAX_VIDEO_SECONDS, mediaLimits: this.config.mediaLimits };
    try {
      const outcome = await this.gateway.process(task, reportProgress, signal);
      return { outputKey, durationSeconds: outcome.durationSeconds, frames: outcome.frames, notes: outcome.notes };
    } finally {
      // handed over, the inputs stay for the job's next attempt, and for a remote run left going that may not have read them yet
      if (!(signal?.reason instanceof HandingOver)) for (const fetched of [inputKey, backgroundImageKey]) if (fetched?.startsWith('inputs/')) await this.storage.delete(fetched);
    }
  }

  /** The job's input and background image, its input admitted; null when the job ended (no credit) or was split into chunks. */
  private async prepare(job: Job, signal?: AbortSignal): Promise<{ inputKey: string; backgroundImageKey: string | null } | null> {
    const { inputKey, timing: uploaded } = await this.resolveInput(job, signal);
    const admitted = await this.admitInput(job, inputKey);
    if (admitted === null) return null;
    // a probed input was held to the limit as it was admitted; an upload not probed here, by its stored duration
    if (admitted === undefined && uploaded !== undefined) await this.refuseOverLength(job, uploaded.durationSeconds, inputKey);
    let backgroundImageKey: string | null;
    try {
      backgroundImageKey = await this.fetchBackgroundImage(job, signal);
    } catch (error) {
      if (inputKey.startsWith('inputs/')) await this.storage.delete(inputKey);
      throw error;
    }
    if (await this.splitWhenLong(job, inputKey, backgroundImageKey, admitted ?? uploaded)) return null;
    return { inputKey, backgroundImageKey };
  }

  /**
   * A video over MAX_VIDEO_SECONDS fails input_too_long as soon as its length is known: before its
   * cost is reserved and before it is cut into chunks (it was cut into one chunk task per 15 s, each
   * of which the engine then refused). A fetched input is deleted.
   */
  private async refuseOverLength(job: Job, durationSeconds: number, inputKey: string): Promise<void> {
    const refused = overLengthLimit(durationSeconds, job.settings.previewDuration, this.config.env.MAX_VIDEO_SECONDS);
    if (!refused) return;
    if (inputKey.startsWith('inputs/')) await this.storage.delete(inputKey);
    throw new InputFailure('input_too_long', `The video was refused: ${refused}`);
  }

  /**
   * A job longer than the chunk length goes out as chunks any worker may take (the reserve covers the
   * whole job already); true when it did. A `pro` prompt with attributes keeps one task
   * (decidesFromWholeClip). `timing` is the probe's when it was probed here, or the one stored with
   * the upload when the upload was probed: the file is then not probed again.
   */
  private async splitWhenLong(job: Job, inputKey: string, backgroundImageKey: string | null, timing: VideoTiming | undefined): Promise<boolean> {
    const { chunkSeconds, prerollSeconds } = this.config.chunking;
    if (!(chunkSeconds > 0) || decidesFromWholeClip(job.settings.model, job.settings.textPrompt)) return false;
    const probed = timing ?? (await this.storage.withLocalFile(inputKey, (path) => this.probe.probe(path)));
    const ranges = isRefusal(probed) ? null : planChunks(probed.durationSeconds, job.settings.previewDuration, chunkSeconds, prerollSeconds, probed.frameRate);
    if (!ranges) return false;
    await this.chunked.split(job, inputKey, backgroundImageKey, ranges);
    return true;
  }

  /**
   * A fetched input passes the input gate before anything else reads it (uploads passed it when they
   * were uploaded), and its cost is reserved once its duration is known; null when the job failed
   * for lack of credit, else the probed duration and frame rate when it was probed here.
   */
  private async admitInput(job: Job, inputKey: string): Promise<VideoTiming | undefined | null> {
    if (!inputKey.startsWith('inputs/') && job.reservedCredits !== null) return undefined;
    const probed = await this.storage.withLocalFile(inputKey, (path) => this.probe.probe(path));
    const fetched = inputKey.startsWith('inputs/');
    if (isRefusal(probed)) {
      if (fetched) await this.storage.delete(inputKey);
      throw new InputFailure('input_invalid', `The video was refused: ${probed.reason}`);
    }
    await this.refuseOverLength(job, probed.durationSeconds, inputKey);
    if (job.reservedCredits !== null) return probed;
    const reserved = await this.lifecycle.reserveFetchedInput(job, probed.durationSeconds);
    if (!reserved && fetched) await this.storage.delete(inputKey);
    return reserved === null ? null : probed;
  }

  /**
   * An upload of this server is read from storage, with the duration its upload probed; any other
   * URL is fetched through the SSRF-guarded client.
   */
  private async resolveInput(job: Job, signal?: AbortSignal): Promise<{ inputKey: string; timing?: VideoTiming }> {
    const uploadId = this.uploads.uploadIdFromUrl(job.videoUrl);
    if (uploadId) {
      // only a missing or deleted upload fails the job; a database that cannot answer is thrown, so the queue retries
      const upload = await this.uploads.findOwned(uploadId, job.apiKeyId).catch((error: unknown) => {
        if (error instanceof DomainError) return null;
        throw error;
      });
      if (!upload) throw new InputFailure('input_unreachable', 'The uploaded video no longer exists');
      // a row whose file is gone (storage restored older than the database) failed worker_failed after every retry
      if (!(await this.storage.stat(upload.storageKey))) throw new InputFailure('input_unreachable', 'The uploaded video is no longer in storage');
      return { inputKey: upload.storageKey, timing: upload.durationSeconds === null ? undefined : { durationSeconds: upload.durationSeconds, frameRate: upload.frameRate } };
    }
    return { inputKey: await this.fetched(job.videoUrl, fetchedInputKeys(job.id).video, 'video', signal) };
  }

  /** `url` at `key`: fetched, unless an attempt handed over kept it there whole (written whole or not at all) */
  private async fetched(url: string, key: string, what: 'video' | 'background image', signal?: AbortSignal): Promise<string> {
    return (await this.storage.stat(key)) ? key : this.download(url, key, what, signal);
  }

  private async fetchBackgroundImage(job: Job, signal?: AbortSignal): Promise<string | null> {
    const { background } = settingsToRun(job);
    if (background.type !== 'image') return null;
    const key = await this.fetched(background.image_url, fetchedInputKeys(job.id).backgroundImage, 'background image', signal);
    const image = await this.storage.withLocalFile(key, (path) => this.probe.probeImage(path));
    if (isRefusal(image)) {
      await this.storage.delete(key);
      throw new InputFailure('input_invalid', `The background image was refused: ${image.reason}`);
    }
    return key;
  }

  /**
   * `url` into storage at `key`, whole within INPUT_FETCH_TIMEOUT_SECONDS; `signal` (the job canceled,
   * the worker stopping) stops it. Bytes that cannot be what is asked for are refused as the gate
   * would refuse them, from their first few KB: the whole body was fetched first (up to the upload
   * limit, for as long as the fetch was allowed) to be refused for its first bytes.
   */
  private async download(url: string, key: string, what: 'video' | 'background image', signal?: AbortSignal): Promise<string> {
    try {
      const deadlineMs = this.config.env.INPUT_FETCH_TIMEOUT_SECONDS * 1000;
      const { body } = await this.outbound.fetchStream(url, { maxBytes: this.config.maxUploadBytes, timeoutMs: 30_000, deadlineMs, signal });
      const { head, replay } = await peek(body, this.probe.headBytes, new PassThrough());
      const refusal = this.probe.refusalOfHead(head, what === 'video' ? 'video' : 'image');
      if (refusal) {
        body.destroy();
        throw new InputFailure('input_invalid', `The ${what} was refused: ${refusal}`);
      }
      await this.storage.put(key, replay);
      return key;
    } catch (error) {
      if (error instanceof OutboundRequestRefused || error instanceof OutboundRequestFailed) {
        throw new InputFailure('input_unreachable', `The ${what} could not be fetched: ${error.message}`);
      }
      throw error;
    }
  }

  private describeFailure(error: unknown): { code: JobFailureCode; message: string } {
    if (error instanceof WorkerFailure) return { code: error.code, message: error.message };
    return { code: 'worker_failed', message: 'Processing failed unexpectedly' };
  }
}
