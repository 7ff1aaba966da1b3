import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../../config/app-config';
import { Clock } from '../../../common/clock';
import { DomainError } from '../../../common/errors/domain-error';
import { JobFailureCode } from '../../../common/errors/error-codes';
import { TransactionScope, UnitOfWork } from '../../../common/unit-of-work';
import { ApiKeyRepository, holdEnabledKey } from '../../auth/ports/api-key.repository';
import { CreditLedger } from '../../billing/ports/credit-ledger';
import { ClaimedKey, IdempotencyStore } from '../../idempotency/ports/idempotency-store';
import { QueuedDelivery, WebhookAnnouncements, WebhookDeliveryQueue } from '../../webhooks/ports/webhook-announcements';
import { billableSeconds, creditCost, overLengthLimit, smallestCharge } from '../domain/job-cost';
import { Job, JobTransitions, WebhookEventName } from '../domain/job';
import { JobRequest, JobSettings, resolveJobSettings } from '../domain/job-settings';
import { JobStatus } from '../domain/job-status';
import { JobEventLog } from '../ports/job-event-log';
import { JobRepository } from '../ports/job.repository';
import { JobDispatchRelay } from './job-dispatch-relay';
import { JobPresenter } from './job.presenter';
import { ServiceMetrics } from '../../metrics/ports/service-metrics';
import { UploadRepository } from '../../uploads/ports/upload.repository';

type Deliveries = QueuedDelivery[];

/** what a job that completes produced: its output, the seconds it is charged, its frames and notes */
export type CompletedWork = {
  outputKey: string;
  durationSeconds: number;
  frames?: number;
  notes: string[];
  /** the worker's time on it alone (fetch, engine, store), where one worker did it whole */
  processingSeconds?: number;
};

/** thrown inside a transaction to undo it: the balance does not cover a fetched input's reserve */
class BalanceShort extends Error {}

/** the refusal of a cancel of a job that has ended */
export function uncancelable(job: Pick<Job, 'status'>): DomainError {
  return new DomainError('invalid_state', `Only pending or processing jobs can be canceled; this job is '${job.status}'`);
}

/** thrown inside a transaction to undo it: the job ended (a cancel) before a fetched input's reserve moved it */
class EndedMeanwhile extends Error {}

/** the failures that are the service's to look into (warnings), not the client's input, credits or cancel */
const SERVICE_FAULTS: ReadonlySet<JobFailureCode> = new Set(['worker_failed', 'worker_timeout', 'output_failed', 'model_unavailable']);

/**
 * Every change of a job's state with what must follow it (credit ledger, job event, webhook outbox),
 * in one transaction; the queue hand-offs happen after the commit.
 */
@Injectable()
export class JobLifecycle {
  private readonly logger = new Logger('Jobs');

  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly presenter: JobPresenter,
    private readonly announcer: WebhookAnnouncements,
    private readonly relay: WebhookDeliveryQueue,
    private readonly dispatchRelay: JobDispatchRelay,
    private readonly clock: Clock,
    private readonly metrics: ServiceMetrics,
    private readonly keys: ApiKeyRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  costOf(settings: Pick<JobSettings, 'model' | 'previewDuration'>, durationSeconds: number): number {
    return creditCost(billableSeconds(durationSeconds, settings.previewDuration), this.config.creditsPerMinute[settings.model]);
  }

  /**
   * An upload whose length is over MAX_VIDEO_SECONDS is refused when its job would start, a 400 with
   * the draft left as it is (a preview of its start is within): it was queued, its cost reserved and
   * cut into chunks before the engine refused it input_too_long.
   */
  assertWithinLengthLimit(settings: Pick<JobSettings, 'previewDuration'>, durationSeconds: number): void {
    const refused = overLengthLimit(durationSeconds, settings.previewDuration, this.config.env.MAX_VIDEO_SECONDS);
    if (refused) throw DomainError.invalid('video_url', `${refused} (MAX_VIDEO_SECONDS): set preview_duration to process its start`);
  }

  /** `underClaim`: the Idempotency-Key claim the request runs under, told of the job in the same transaction */
  async created(job: Job, underClaim?: ClaimedKey): Promise<void> {
    await this.unitOfWork.run((tx) => this.insertDraft(tx, job, underClaim));
  }

  private async insertDraft(tx: TransactionScope, job: Job, underClaim: ClaimedKey | undefined): Promise<void> {
    await holdEnabledKey(tx.get(ApiKeyRepository), job.apiKeyId);
    await tx.get(JobRepository).insert(job);
    await tx.get(JobEventLog).record({ apiKeyId: job.apiKeyId, jobId: job.id, kind: 'created' });
    if (underClaim) await tx.get(IdempotencyStore).noteCreated(underClaim, job.id);
  }

  /**
   * Draft -> pending. When the input's duration is known (an upload), its cost is reserved now and a
   * balance that does not cover it is a 402 with the job left a draft. `unsaved`: the draft is not
   * stored yet (auto_start) and is inserted in the same transaction, so a start refused (the database
   * gone, a 503) leaves no draft behind the error: a client retrying it found an extra job in `created`.
   */
  async start(job: Job, request: JobRequest, webhookUrl: string | null, knownDurationSeconds: number | null, { unsaved = false, uploadId, underClaim }: { unsaved?: boolean; uploadId?: string; underClaim?: ClaimedKey } = {}): Promise<Job> {
    const settings = resolveJobSettings(request);
    if (knownDurationSeconds !== null) this.assertWithinLengthLimit(settings, knownDurationSeconds);
    const reserve = knownDurationSeconds === null ? null : this.costOf(settings, knownDurationSeconds);
    const { started, deliveries } = await this.unitOfWork.run(async (tx) => {
      // the key first (insertDraft holds it too), as every transaction that locks it (the ledger's), then the upload
      if (unsaved) await this.insertDraft(tx, job, underClaim);
      else await holdEnabledKey(tx.get(ApiKeyRepository), job.apiKeyId);
      if (underClaim && !unsaved) await tx.get(IdempotencyStore).noteCreated(underClaim, job.id);
      if (uploadId && (await tx.get(UploadRepository).holdForStart(uploadId)) === 'deleted') throw new DomainError('gone', 'This upload was deleted after its retention period');
      // The draft is moved first: of two starts at once, the second waits on the row and finds it
      // started (409), where reserving first had it meet the first one's reserve (a 500).
      const changes = { ...JobTransitions.start(job, settings, request, this.clock.now()), webhookUrl, billingStatus: reserve === null ? null : ('reserved' as const), reservedCredits: reserve };
      const moved = await this.move(tx, job, 'created', changes);
      if (reserve !== null && !(await tx.get(CreditLedger).reserve(job.apiKeyId, job.id, reserve))) {
        throw new DomainError('insufficient_credits', `This job needs ${reserve} credits; the key's balance does not cover it`);
      }
      if (reserve === null) await this.assertCoversSmallestCharge(tx, job.apiKeyId, settings);
      await tx.get(JobEventLog).record({ apiKeyId: job.apiKeyId, jobId: job.id, kind: 'started' });
      return { started: moved, deliveries: await this.announce(tx, moved, 'job.started') };
    });
    await this.relay.enqueue(deliveries);
    await this.dispatchRelay.relay(started.id);
    return started;
  }

  /**
   * An input fetched by URL is reserved for once its length is known, but a balance below any job's
   * cost is refused now: its input was fetched, and its fetch paid for by this service, to fail.
   */
  private async assertCoversSmallestCharge(tx: TransactionScope, apiKeyId: string, settings: JobSettings): Promise<void> {
    const smallest = smallestCharge(this.config.creditsPerMinute[settings.model]);
    if (smallest === 0) return;
    const ledger = tx.get(CreditLedger);
    await ledger.lock(apiKeyId);
    if ((await ledger.balance(apiKeyId)) < smallest) throw new DomainError('insufficient_credits', `This job needs at least ${smallest} credit; the key's balance is empty`);
  }

  /** A draft that could not start for lack of credit (auto_start): failed with insufficient_credits. `unsaved` as for start. */
  async refuseForCredit(job: Job, request: JobRequest, webhookUrl: string | null, message: string, { unsaved = false, underClaim }: { unsaved?: boolean; underClaim?: ClaimedKey } = {}): Promise<Job> {
    const { failed, deliveries } = await this.unitOfWork.run(async (tx) => {
      if (unsaved) await this.insertDraft(tx, job, underClaim);
      const changes = { ...JobTransitions.fail(job, 'insufficient_credits', message, this.clock.now()), request, settings: resolveJobSettings(request), webhookUrl, billingStatus: 'insufficient_credits' as const };
      const moved = await this.move(tx, job, 'created', changes);
      await tx.get(JobEventLog).record({ apiKeyId: job.apiKeyId, jobId: job.id, kind: 'failed' });
      return { failed: moved, deliveries: await this.announce(tx, moved, 'job.failed') };
    });
    this.recordFailure(failed, 'insufficient_credits', message);
    await this.relay.enqueue(deliveries);
    return failed;
  }

  /** a job that failed, to monitoring and the log: a warning where the service is at fault */
  private recordFailure(job: Job, code: JobFailureCode, message: string): void {
    this.metrics.observeJob({ model: job.settings.model, status: 'failed', errorCode: code, seconds: this.secondsSinceStart(job) });
    const line = `job ${job.id} failed (${code}): ${message}`;
    if (SERVICE_FAULTS.has(code)) this.logger.warn(line);
    else this.logger.log(line);
  }

  pickUp(job: Job): Promise<Job | null> {
    return this.unitOfWork.run((tx) => tx.get(JobRepository).transition(job.id, 'pending', JobTransitions.pickUp(job)));
  }

  /**
   * For inputs fetched by URL the duration is known only once fetched: reserve then, or fail the
   * job. Null: the job goes no further (refused for credit, or canceled while its input was fetched).
   * The key's ledger is locked before the job is read, as a cancel and a completion lock it (fail,
   * completeProcessing): a cancel then sees this reserve and releases it (it had read the job before
   * the reserve, found nothing reserved, and left the reserve held for good), and this sees a cancel,
   * or a reserve made by another run of the same job (a stalled job run again), before it reserves.
   */
  async reserveFetchedInput(job: Job, durationSeconds: number): Promise<Job | null> {
    if (job.reservedCredits !== null) return job;
    const reserve = this.costOf(job.settings, durationSeconds);
    try {
      return await this.unitOfWork.run(async (tx) => {
        await tx.get(CreditLedger).lock(job.apiKeyId);
        const current = await tx.get(JobRepository).findById(job.id);
        if (current?.status !== 'processing') return null;
        if (current.reservedCredits !== null) return current;
        if (!(await tx.get(CreditLedger).reserve(job.apiKeyId, job.id, reserve))) throw new BalanceShort();
        const moved = await tx.get(JobRepository).transition(job.id, 'processing', { billingStatus: 'reserved', reservedCredits: reserve });
        if (!moved) throw new EndedMeanwhile();
        return moved;
      });
    } catch (error) {
      if (error instanceof EndedMeanwhile) return null;
      if (!(error instanceof BalanceShort)) throw error;
    }
    await this.fail(job, 'insufficient_credits', `This job needs ${reserve} credits; the key's balance does not cover it`, 'insufficient_credits');
    return null;
  }

  /**
   * Processing -> completed: charge the processed seconds (at most the reserve), release the rest.
   * False, with nothing written, where the job failed meanwhile (canceled while its output was
   * written): that output is then the caller's to delete, or it stayed in storage for good with no
   * job naming it. A job completed already is an error, as any other illegal move.
   */
  async complete(job: Job, outcome: CompletedWork): Promise<boolean> {
    try {
      await this.completeProcessing(job, outcome);
      return true;
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'invalid_state')) throw error;
      const current = await this.unitOfWork.run((tx) => tx.get(JobRepository).findById(job.id));
      if (current?.status === 'failed') return false;
      throw error;
    }
  }

  /**
   * The output's URL (for the webhook's body) is signed before the transaction: signing with S3
   * credentials that need a refresh (an instance role, no static keys) goes over the network, and the
   * transaction holds the key's ledger from its settle on.
   */
  private async completeProcessing(job: Job, outcome: CompletedWork): Promise<void> {
    const completion = JobTransitions.complete(job, outcome, this.clock.now());
    const outputUrl = await this.presenter.outputUrl({ ...job, ...completion });
    const deliveries = await this.unitOfWork.run(async (tx) => {
      const charged = job.reservedCredits === null ? 0 : await tx.get(CreditLedger).settle(job.apiKeyId, job.id, this.costOf({ ...job.settings, previewDuration: null }, outcome.durationSeconds));
      const changes = { ...completion, billingStatus: job.reservedCredits === null ? job.billingStatus : ('charged' as const), chargedCredits: charged };
      const moved = await this.move(tx, job, 'processing', changes);
      await tx.get(JobEventLog).record({ apiKeyId: job.apiKeyId, jobId: job.id, kind: 'completed', seconds: outcome.durationSeconds, credits: charged });
      return this.announce(tx, moved, 'job.completed', outputUrl);
    });
    const seconds = this.secondsSinceStart(job);
    this.metrics.observeJob({ model: job.settings.model, status: 'completed', seconds, frames: outcome.frames, processingSeconds: outcome.processingSeconds });
    this.logger.log(`job ${job.id} completed: ${job.settings.model}, ${outcome.frames ?? 'unknown'} frames, ${outcome.durationSeconds.toFixed(2)} s of video in ${seconds.toFixed(1)} s`);
    await this.relay.enqueue(deliveries);
  }

  private secondsSinceStart(job: Job): number {
    return job.startedAt ? (this.clock.now().getTime() - job.startedAt.getTime()) / 1000 : 0;
  }

  /**
   * Pending or processing -> failed: the whole reserve goes back. The key's ledger is locked first
   * (the release: nothing where nothing is held), and the job read after it: a reserve committed while
   * this waited on the ledger (reserveFetchedInput) is released with the rest. Every change of a job
   * that touches the ledger locks it before the job's row, but a start, which moves its draft first:
   * the draft is no job that a cancel, a completion or a reserve moves (their moves skip it).
   */
  async fail(job: Job, code: JobFailureCode, message: string, billingStatus: 'refunded' | 'insufficient_credits' = 'refunded'): Promise<void> {
    const deliveries = await this.unitOfWork.run((tx) => this.endIn(tx, job, code, message, billingStatus, { announced: true }));
    if (deliveries === null) return;
    this.recordFailure(job, code, message);
    await this.relay.enqueue(deliveries);
  }

  /**
   * Ends a job of a key whose data is being erased, in the erasure's transaction that disables the
   * key, as a cancel ends it, announced to nobody: the job.failed body carried the metadata, URLs and
   * prompt the client asked to have erased. Ended before the disable commits, the job is one that
   * the watch of a disabled key's jobs finds ended, and announces nothing for either.
   */
  async endForErasure(tx: TransactionScope, job: Job): Promise<void> {
    const message = "Canceled: the API key's data was erased";
    if ((await this.endIn(tx, job, 'canceled', message, 'refunded', { announced: false })) !== null) this.recordFailure(job, 'canceled', message);
  }

  /** the job ended in `tx` and what announces it, or null for a job that had already ended */
  private async endIn(tx: TransactionScope, job: Job, code: JobFailureCode, message: string, billingStatus: 'refunded' | 'insufficient_credits', { announced }: { announced: boolean }): Promise<Deliveries | null> {
    await tx.get(CreditLedger).release(job.apiKeyId, job.id);
    const current = await tx.get(JobRepository).findById(job.id);
    // A job that had already ended: nothing written, nothing announced (its reserve was settled or released when it ended).
    if (!current || (current.status !== 'pending' && current.status !== 'processing')) return null;
    const refunded = current.reservedCredits !== null ? 'refunded' : billingStatus === 'insufficient_credits' ? billingStatus : current.billingStatus;
    const changes = { ...JobTransitions.fail(current, code, message, this.clock.now()), billingStatus: refunded };
    // a pending job picked up since it was read (a pick-up takes no ledger lock) is failed from processing
    const moved = (await tx.get(JobRepository).transition(job.id, current.status, changes)) ?? (await this.move(tx, current, 'processing', changes));
    await tx.get(JobEventLog).record({ apiKeyId: job.apiKeyId, jobId: job.id, kind: 'failed' });
    return announced ? this.announce(tx, moved, 'job.failed') : [];
  }

  /**
   * Ends a pending or processing job whose API key was disabled, as a cancel ends one (its reserve
   * released, job.failed announced), and says whether it did. A disabled key's queued and running
   * jobs went on to completion, charged and announced, and nobody could cancel them any more: its
   * owner's cancel was refused (401), and no administrator's route cancels a job.
   */
  async endIfKeyDisabled(job: Job): Promise<boolean> {
    if (!(await this.keyDisabled(job.apiKeyId))) return false;
    await this.fail(job, 'canceled', 'Canceled: the API key was disabled');
    return true;
  }

  /** whether the key exists and is disabled */
  async keyDisabled(apiKeyId: string): Promise<boolean> {
    const key = await this.keys.findById(apiKeyId); // one read, no transaction: the watch asks every second
    return key !== null && !key.enabled;
  }

  /** The client's cancel: a pending or processing job ends failed with `canceled`, its reserve released. */
  async cancel(job: Job): Promise<void> {
    if (job.status !== 'pending' && job.status !== 'processing') {
      throw uncancelable(job);
    }
    await this.fail(job, 'canceled', 'Canceled by the client');
  }

  private async move(tx: TransactionScope, job: Job, from: JobStatus, changes: Partial<Job>): Promise<Job> {
    const moved = await tx.get(JobRepository).transition(job.id, from, changes);
    if (!moved) throw new DomainError('invalid_state', 'This job was changed by another request');
    return moved;
  }

  private async announce(tx: TransactionScope, job: Job, event: WebhookEventName, signedOutputUrl?: string | null): Promise<Deliveries> {
    return this.announcer.announce(tx, { apiKeyId: job.apiKeyId, jobId: job.id, webhookUrl: job.webhookUrl, event, data: await this.presenter.present(job, signedOutputUrl) });
  }
}
