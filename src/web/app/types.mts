/** The API's shapes as the dashboard reads them (contract.md). */

export type JobStatus = 'created' | 'pending' | 'processing' | 'completed' | 'failed';
export const JOB_STATUSES: JobStatus[] = ['created', 'pending', 'processing', 'completed', 'failed'];
export const MODELS = ['light', 'human', 'original', 'pro'] as const;
export const OUTPUT_FORMATS = ['webm', 'mov', 'mp4', 'gif', 'webp', 'png_sequence'] as const;
export const ANCHORS = ['top-left', 'top-center', 'top-right', 'center-left', 'center', 'center-right', 'bottom-left', 'bottom-center', 'bottom-right'] as const;
export type Anchor = (typeof ANCHORS)[number];

export interface JobView {
  id: string;
  status: JobStatus;
  progress: number;
  output_url: string | null;
  output_format: string;
  error: string | null;
  error_code: string | null;
  created_at: string;
  completed_at: string | null;
  duration_seconds: number | null;
  billing_status: string | null;
  video_url: string;
  model: string;
  preview_duration: number | null;
}

export interface JobsPage {
  items: JobView[];
  total: number;
  limit: number;
  offset: number;
}

export interface UploadView {
  video_id: string;
  video_url: string;
  filename: string;
  size: number;
}

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
