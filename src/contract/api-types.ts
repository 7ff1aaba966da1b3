/**
 * The API's response shapes that both builds read: the server (Nest, CommonJS) and the dashboard
 * (src/web, ES modules in the browser). Types and pure values only, no imports but the contract's own.
 */
import type { JobStatus } from './job-status.js';

/** A job as GET /v1/jobs/{id} shows it. */
export interface JobView {
  id: string;
  job_id: string;
  status: JobStatus;
  progress: number;
  output_url: string | null;
  output_format: string;
  error: string | null;
  error_code: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  duration_seconds: number | null;
  billing_status: string | null;
  credits_reserved: number | null;
  credits_charged: number | null;
  webhook_url: string | null;
  webhook_events: Record<string, string>;
  video_url: string;
  model: string;
  background: unknown;
  composition: unknown;
  preview_duration: number | null;
  text_prompt: string | null;
  metadata: Record<string, string> | null;
  notes: string[];
}

/** A job list page (GET /v1/jobs). */
export interface JobsPage {
  items: JobView[];
  total: number;
  limit: number;
  offset: number;
}

/** An upload as POST /v1/uploads answers it. */
export interface UploadView {
  success: true;
  video_id: string;
  video_url: string;
  filename: string;
  size: number;
  content_type: string;
  duration_seconds: number | null;
}

/** What a key used: the counters of one day, or of a window. */
export interface UsageCounters {
  total_jobs: number;
  completed_jobs: number;
  failed_jobs: number;
  credits_used: number;
  video_seconds: number;
  requests: number;
}

export type DailyUsage = UsageCounters & { date: string };

/** GET /v1/usage/summary: totals of the window and one row per UTC day, zeros included. */
export interface UsageSummary extends UsageCounters {
  days: number;
  daily: DailyUsage[];
}

/** One recorded API call, as GET /v1/usage/events lists it. */
export interface UsageEvent {
  id: number;
  created_at: string;
  method: string;
  path: string;
  status_code: number;
  job_id: string | null;
  credits: number;
  duration_ms: number;
}

/** GET /v1/usage/events. */
export interface UsageEvents {
  items: UsageEvent[];
}

/** A credit package of PRICING_PACKAGES. */
export interface PricingPackage {
  name: string;
  credits: number;
  price_cents: number;
  currency: string;
}

/** GET /api/pricing (public). */
export interface Pricing {
  model_pricing_credits_per_minute: Record<string, number>;
  price_per_second_cents: number;
  packages: PricingPackage[];
}
