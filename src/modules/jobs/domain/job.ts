import { JobFailureCode } from '../../../common/errors/error-codes';
import { DraftSettings, JobRequest, JobSettings } from './job-settings';
import { assertTransition, JobStatus } from './job-status';

import type { WebhookEventName } from '../../../contract/webhook-events';

export type { WebhookEventName };

/** Where a job's credits stand: held at start, charged at completion, returned on failure. */
export type BillingStatus = 'reserved' | 'charged' | 'refunded' | 'insufficient_credits';
export type WebhookDeliveryState = 'pending' | 'sent' | 'failed';

export interface Job {
  id: string;
  apiKeyId: string;
  status: JobStatus;
  progress: number;
  videoUrl: string;
  request: JobRequest;
  /** a started job's are complete and checked (resolveJobSettings); a draft's may still wait for its start (DraftSettings) */
  settings: JobSettings | DraftSettings;
  webhookUrl: string | null;
  metadata: Record<string, string> | null;
  error: string | null;
  errorCode: JobFailureCode | null;
  outputKey: string | null;
  durationSeconds: number | null;
  billingStatus: BillingStatus | null;
  reservedCredits: number | null;
  chargedCredits: number | null;
  webhookEvents: Partial<Record<WebhookEventName, WebhookDeliveryState>>;
  notes: string[];
  createdAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
  /** set once the relay has handed the started job to the queue (outbox) */
  dispatchedAt: Date | null;
  /** set when retention deleted the output */
  outputDeletedAt: Date | null;
}

/** A new draft: nothing started, billed, announced or stored yet. */
export function draftJob(fields: Pick<Job, 'id' | 'apiKeyId' | 'videoUrl' | 'request' | 'settings' | 'webhookUrl' | 'metadata' | 'createdAt'>): Job {
  return {
    ...fields,
    status: 'created',
    progress: 0,
    error: null,
    errorCode: null,
    outputKey: null,
    durationSeconds: null,
    billingStatus: null,
    reservedCredits: null,
    chargedCredits: null,
    webhookEvents: {},
    notes: [],
    startedAt: null,
    completedAt: null,
    dispatchedAt: null,
    outputDeletedAt: null,
  };
}

/** A job failed without ever starting: an auto_start refused for credit (a started one that failed at once has its start) */
export function refusedAtStart(job: Job): boolean {
  return job.status === 'failed' && job.startedAt === null;
}

/**
 * The settings a started job runs with. Its start stored them resolved and checked: only a draft's
 * (never run) may miss a colour or an image.
 */
export function settingsToRun(job: Job): JobSettings {
  const { background } = job.settings;
  if ((background.type === 'color' && background.color === null) || (background.type === 'image' && background.image_url === null)) {
    throw new Error(`job ${job.id} (${job.status}) has a ${background.type} background still to come: only a draft's settings wait for its start`);
  }
  return { ...job.settings, background };
}

/** Pure state changes: each returns the changed fields after checking the transition is legal. */
export const JobTransitions = {
  start(job: Job, settings: JobSettings, request: JobRequest, now: Date): Partial<Job> {
    assertTransition(job.status, 'pending');
    return { status: 'pending', settings, request, startedAt: now, progress: 0 };
  },
  pickUp(job: Job): Partial<Job> {
    assertTransition(job.status, 'processing');
    return { status: 'processing', progress: 0 };
  },
  complete(job: Job, result: { outputKey: string; durationSeconds: number; notes: string[] }, now: Date): Partial<Job> {
    assertTransition(job.status, 'completed');
    return { status: 'completed', progress: 100, outputKey: result.outputKey, durationSeconds: result.durationSeconds, notes: result.notes, completedAt: now };
  },
  fail(job: Job, code: JobFailureCode, message: string, now: Date): Partial<Job> {
    assertTransition(job.status, 'failed');
    return { status: 'failed', error: message, errorCode: code, completedAt: now };
  },
};

/**
 * A job with what its client put in it erased (an erasure of its key's data): the video URL, the
 * webhook URL, the metadata, the error's text, the notes, a background image's URL and a text prompt.
 * What it was, when, and what it cost stay, for accounting. Its output is marked deleted at `now`.
 * The TypeORM repository writes the same in SQL (eraseClientContent); the contract tests hold them alike.
 */
export function withClientContentErased(job: Job, now: Date): Job {
  const { bg_image_url: _imageUrl, text_prompt: _prompt, ...request } = job.request;
  if (request.background) {
    const { image_url: _backgroundUrl, ...kept } = request.background;
    request.background = kept;
  }
  const { background } = job.settings;
  const settings = { ...job.settings, textPrompt: null, background: background.type === 'image' && background.image_url !== null ? { ...background, image_url: '' } : background };
  return {
    ...job,
    videoUrl: '',
    webhookUrl: null,
    metadata: null,
    error: null,
    notes: [],
    request,
    settings,
    outputDeletedAt: job.outputKey === null ? job.outputDeletedAt : (job.outputDeletedAt ?? now),
  };
}
