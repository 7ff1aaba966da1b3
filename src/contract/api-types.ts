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
