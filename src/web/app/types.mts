/** The API's shapes as the dashboard reads them: the contract's own (src/contract, shared with the server), and the dashboard's orderings. */
import type { Anchor, Model } from './job-settings.js';

export type { JobsPage, JobView, UploadView } from './api-types.js';
export type { JobStatus } from './job-status.js';
export type { Anchor } from './job-settings.js';
export { JOB_STATUSES, TERMINAL_STATUSES } from './job-status.js';
export { OUTPUT_EXTENSIONS, OUTPUT_FORMATS } from './job-settings.js';

/** The models in the order the form offers them. */
export const MODELS: readonly Model[] = ['light', 'human', 'original', 'pro'];
/** The anchors in the order of the 3x3 grid. */
export const ANCHORS: readonly Anchor[] = ['top-left', 'top-center', 'top-right', 'center-left', 'center', 'center-right', 'bottom-left', 'bottom-center', 'bottom-right'];

export interface UsageCounters {
  total_jobs: number;
  completed_jobs: number;
  failed_jobs: number;
  credits_used: number;
  video_seconds: number;
  requests: number;
}

export interface UsageSummary extends UsageCounters {
  days: number;
  daily: Array<UsageCounters & { date: string }>;
}

export interface UsageEvent {
  id: string;
  created_at: string;
  method: string;
  path: string;
  status_code: number;
  job_id: string | null;
  credits: number | null;
  duration_ms: number | null;
}

export interface UsageEvents {
  items: UsageEvent[];
}

export interface Pricing {
  model_pricing_credits_per_minute: Record<string, number>;
  price_per_second_cents: number;
  packages: Array<{ name: string; credits: number; price_cents: number; currency: string }>;
}
