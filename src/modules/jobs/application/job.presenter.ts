import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../../config/app-config';
import { ObjectStorage } from '../../storage/ports/object-storage';
import { JobView } from '../../../contract/api-types';
import { Job } from '../domain/job';

export type { JobView } from '../../../contract/api-types';

const STATUS_MESSAGES: Record<string, string> = {
  created: 'Draft created; start it with POST /v1/jobs/{id}/start',
  pending: 'Job accepted and queued for processing',
  processing: 'Job is processing',
  completed: 'Job completed',
  failed: 'Job failed',
};

/** Jobs as the API shows them; output URLs are signed afresh on every read. */
@Injectable()
export class JobPresenter {
  constructor(
    private readonly storage: ObjectStorage,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** `signedOutputUrl`: the output's URL signed already (before a transaction, which signing must not hold) */
  async present(job: Job, signedOutputUrl?: string | null): Promise<JobView> {
    return {
      id: job.id,
      job_id: job.id,
      status: job.status,
      progress: job.progress,
      output_url: signedOutputUrl !== undefined ? signedOutputUrl : await this.outputUrl(job),
      output_format: job.settings.outputFormat,
      error: job.error,
      error_code: job.errorCode,
      created_at: job.createdAt.toISOString(),
      started_at: job.startedAt?.toISOString() ?? null,
      completed_at: job.completedAt?.toISOString() ?? null,
      duration_seconds: job.durationSeconds,
      billing_status: job.billingStatus,
      credits_reserved: job.reservedCredits,
      credits_charged: job.chargedCredits,
      webhook_url: job.webhookUrl,
      webhook_events: job.webhookEvents as Record<string, string>,
      video_url: job.videoUrl,
      model: job.settings.model,
      background: job.settings.background,
      composition: job.settings.composition,
      preview_duration: job.settings.previewDuration,
      text_prompt: job.settings.textPrompt,
      metadata: job.metadata,
      notes: job.notes,
    };
  }

  /** The body of GET /v1/jobs/{id}. */
  async status(job: Job): Promise<{ success: true } & JobView> {
    return { success: true, ...(await this.present(job)) };
  }

  async submission(job: Job): Promise<{ success: true; id: string; status: string; message: string; job: JobView }> {
    return { success: true, id: job.id, status: job.status, message: STATUS_MESSAGES[job.status], job: await this.present(job) };
  }

  async outputUrl(job: Job): Promise<string | null> {
    if (job.status !== 'completed' || !job.outputKey || job.outputDeletedAt) return null;
    const extension = job.outputKey.slice(job.outputKey.lastIndexOf('.'));
    return this.storage.signedDownloadUrl(job.outputKey, this.config.env.SIGNED_URL_TTL_SECONDS, `${job.id}${extension}`);
  }
}
