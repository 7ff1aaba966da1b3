import { Injectable } from '@nestjs/common';
import { Clock } from '../../../common/clock';
import { DomainError } from '../../../common/errors/domain-error';
import { isJobId } from '../../../contract/ids';
import { Ids } from '../../../common/ids';
import { OutboundHttp, OutboundRequestRefused } from '../../../common/outbound-http';
import { UploadedVideos } from '../../uploads/ports/uploaded-videos';
import { ClaimedKey } from '../../idempotency/ports/idempotency-store';
import { draftJob, Job } from '../domain/job';
import { JobLifecycle, uncancelable } from './job-lifecycle';
import { DraftSettings, JobRequest, JobSettings, mergeRequest, resolveDraftSettings, resolveJobSettings } from '../domain/job-settings';
import { JobStatus } from '../domain/job-status';
import { JobPage, JobRepository } from '../ports/job.repository';

export interface CreateJobCommand {
  apiKeyId: string;
  videoUrl: string;
  request: JobRequest;
  webhookUrl?: string;
  metadata?: Record<string, string>;
  autoStart: boolean;
  /** the Idempotency-Key claim the request runs under */
  underClaim?: WorkClaim;
}

export interface StartOverrides {
  request: JobRequest;
  webhookUrl?: string;
}

/**
 * An Idempotency-Key claim: the job made is noted under it in the transaction that makes it, and
 * `createdBefore` is the job an earlier run of the request made before its process died unanswered.
 */
export type WorkClaim = ClaimedKey & { createdBefore?: string };

/** The jobs use cases: create, start, read, list. Processing lives in ProcessJobHandler. */
@Injectable()
export class JobsService {
  constructor(
    private readonly jobs: JobRepository,
    private readonly lifecycle: JobLifecycle,
    private readonly uploads: UploadedVideos,
    private readonly outbound: OutboundHttp,
    private readonly clock: Clock,
    private readonly ids: Ids,
  ) {}

  async create(command: CreateJobCommand): Promise<Job> {
    const { underClaim } = command;
    const earlier = underClaim?.createdBefore === undefined ? null : await this.jobs.findOwned(underClaim.createdBefore, command.apiKeyId);
    if (earlier) return earlier;
    // a draft's settings stay editable until its start, which checks what the draft leaves open
    const settings = command.autoStart ? resolveJobSettings(command.request) : resolveDraftSettings(command.request);
    const uploadedSeconds = await this.assertVideoUrl(command.videoUrl, command.apiKeyId);
    await this.assertUrls(command.request, settings, command.webhookUrl);
    // refused before the draft is made: a start refused after it would leave one behind the 400
    if (command.autoStart && uploadedSeconds !== null) this.lifecycle.assertWithinLengthLimit(settings, uploadedSeconds);
    const job = draftJob({
      id: this.ids.job(),
      apiKeyId: command.apiKeyId,
      videoUrl: command.videoUrl,
      request: command.request,
      settings,
      webhookUrl: command.webhookUrl ?? null,
      metadata: command.metadata ?? null,
      createdAt: this.clock.now(),
    });
    if (!command.autoStart) {
      await this.lifecycle.created(job, underClaim);
      return job;
    }
    // the draft is stored with its start, or with its refusal for credit: a creation that fails leaves no job
    try {
      return await this.startJob(job, command.request, command.webhookUrl, { unsaved: true, underClaim });
    } catch (error) {
      // auto_start without enough credit: the job exists, failed, and the response says why.
      if (error instanceof DomainError && error.code === 'insufficient_credits') return this.lifecycle.refuseForCredit(job, command.request, command.webhookUrl ?? null, error.message, { unsaved: true, underClaim });
      throw error;
    }
  }

  /** `underClaim` as for create: a start that an earlier run of the request made answers the job as it is now */
  async start(apiKeyId: string, id: string, overrides: StartOverrides, underClaim?: WorkClaim): Promise<Job> {
    const job = await this.get(apiKeyId, id);
    if (underClaim?.createdBefore === job.id) return job;
    if (job.status !== 'created') throw new DomainError('invalid_state', `Only draft jobs can be started; this job is '${job.status}'`);
    const request = mergeRequest(job.request, overrides.request);
    // the job it starts is checked (its settings as merged), not the overrides alone: a draft's green over mp4, started with output_format mp4 alone, was refused as transparent
    await this.assertUrls(request, resolveJobSettings(request), overrides.webhookUrl);
    return this.startJob(job, request, overrides.webhookUrl ?? job.webhookUrl ?? undefined, { underClaim });
  }

  async get(apiKeyId: string, id: string): Promise<Job> {
    const job = isJobId(id) ? await this.jobs.findOwned(id, apiKeyId) : null;
    if (!job) throw DomainError.notFound('Job');
    return job;
  }

  /** Any key's job, for the keyless download the operator may allow (ALLOW_KEYLESS_DOWNLOAD). */
  async getWithoutOwner(id: string): Promise<Job> {
    const job = isJobId(id) ? await this.jobs.findById(id) : null;
    // a disabled key's outputs are not handed out without a key either (its own key is refused)
    if (!job || (await this.lifecycle.keyDisabled(job.apiKeyId))) throw DomainError.notFound('Job');
    return job;
  }

  /**
   * A job that completed or failed on its own after it was read here, before its cancel took it,
   * keeps its end: refused as a cancel after it would be. One that another cancel ended answers as canceled.
   */
  async cancel(apiKeyId: string, id: string): Promise<Job> {
    await this.lifecycle.cancel(await this.get(apiKeyId, id));
    const after = await this.get(apiKeyId, id);
    if (after.errorCode !== 'canceled') throw uncancelable(after);
    return after;
  }

  list(apiKeyId: string, query: { status?: JobStatus; limit: number; offset: number }): Promise<JobPage> {
    return this.jobs.list({ apiKeyId, ...query });
  }

  private async startJob(job: Job, request: JobRequest, webhookUrl: string | undefined, options: { unsaved?: boolean; underClaim?: ClaimedKey }): Promise<Job> {
    const uploadId = this.uploads.uploadIdFromUrl(job.videoUrl);
    // an upload past its retention is 410 here as at create, and the draft stays a draft
    const upload = uploadId ? await this.uploads.findOwned(uploadId, job.apiKeyId).catch(whenNotFound(() => null)) : null;
    // the job as its start committed it (a worker's pick-up since then shows at the next poll)
    return this.lifecycle.start(job, request, webhookUrl ?? null, upload?.durationSeconds ?? null, { ...options, uploadId: upload?.id });
  }

  /**
   * A video_url is either one of this server's upload URLs (owned by the caller) or a public http(s)
   * URL. The upload's duration when it is one (null when it is not, or its probe gave none).
   */
  private async assertVideoUrl(videoUrl: string, apiKeyId: string): Promise<number | null> {
    const uploadId = this.uploads.uploadIdFromUrl(videoUrl);
    if (uploadId) {
      const upload = await this.uploads.findOwned(uploadId, apiKeyId).catch(
        whenNotFound(() => {
          throw DomainError.invalid('video_url', 'refers to an upload that does not exist');
        }),
      );
      return upload.durationSeconds ?? null;
    }
    await this.assertPublicUrl('video_url', videoUrl);
    return null;
  }

  private async assertUrls(request: JobRequest, settings: JobSettings | DraftSettings, webhookUrl: string | undefined): Promise<void> {
    if (webhookUrl) await this.assertPublicUrl('webhook_url', webhookUrl);
    if (settings.background.type === 'image' && settings.background.image_url !== null) {
      await this.assertPublicUrl(request.background?.type === 'image' ? 'background.image_url' : 'bg_image_url', settings.background.image_url);
    }
  }

  private async assertPublicUrl(field: string, url: string): Promise<void> {
    try {
      await this.outbound.assertAllowed(url);
    } catch (error) {
      if (error instanceof OutboundRequestRefused) throw DomainError.invalid(field, error.message);
      throw error;
    }
  }
}

/**
 * A catch handler: an upload that does not exist goes to `otherwise`; anything else goes on as it is
 * (a 410 for an upload past its retention, a database that cannot be reached: that was answered 400
 * "refers to an upload that does not exist", which a client does not retry).
 */
function whenNotFound<T>(otherwise: () => T): (error: unknown) => T {
  return (error) => {
    if (error instanceof DomainError && error.code === 'not_found') return otherwise();
    throw error;
  };
}
