/**
 * The RunPod serverless protocol as Backdrop speaks it (see docs: README "Remote GPU workers").
 * Shared by the API's RemoteHttpWorkerGateway and the standalone worker server (src/worker); types
 * and small pure helpers only, so the worker pulls nothing of Nest in.
 *
 *   POST /run        {input: RemoteTaskInput, webhook?, policy?}  -> {id, status: 'IN_QUEUE'}
 *   GET  /status/:id -> RemoteStatus (404 once the result expired)
 *   POST /cancel/:id -> {id, status: 'CANCELLED'}
 *   POST /retry/:id  -> {id, status: 'IN_QUEUE'} (FAILED or TIMED_OUT jobs)
 *   GET  /health     -> RemoteHealth
 * Every request carries `authorization: <WORKER_API_KEY>`.
 */
import type { JobSettings } from '../../contract/job-settings';
import type { JobFailureCode } from '../errors/error-codes';
import { JOB_FAILURE_CODES } from '../errors/error-codes';

export const REMOTE_STATUSES = ['IN_QUEUE', 'IN_PROGRESS', 'COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'] as const;
export type RemoteStatusName = (typeof REMOTE_STATUSES)[number];
export const TERMINAL_STATUSES: readonly RemoteStatusName[] = ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'];

/** What a worker needs to process one job: signed URLs, never storage credentials. */
export interface RemoteTaskInput {
  job_id: string;
  /** signed GET URL of the input video */
  input_url: string;
  /** signed GET URL of the background image, when the background is an image */
  background_image_url: string | null;
  /** signed PUT URL the output is uploaded to (the request body is the whole file) */
  output_upload_url: string;
  settings: JobSettings;
  max_duration_seconds: number;
  /** the API's frame and image size limits (MAX_VIDEO_WIDTH...); absent: the engine's defaults */
  /** max_video_fps: absent from an API before it was sent (the engine's default then) */
  media_limits?: { max_video_width: number; max_video_height: number; max_video_pixels: number; max_video_fps?: number; max_image_pixels: number };
  /** one chunk of a long job: process only this time range, after a discarded pre-roll; absent: the whole video */
  segment?: { start_seconds: number; end_seconds?: number; preroll_seconds: number };
}

/**
 * What makes two /run requests one run (a /run retried after a lost answer gets the first run back):
 * the API's job and, for a chunk of a long job, which chunk. The chunks of a job share its job_id:
 * keyed on it alone, a chunk sent while another of the job ran got that run back, and its own
 * output was never written.
 */
export function runKeyOf(input: RemoteTaskInput): string {
  return input.segment ? `${input.job_id}~chunk-at-${input.segment.start_seconds}` : input.job_id;
}

export interface RunRequest {
  input: RemoteTaskInput;
  /** POSTed with the final status object when the job finishes */
  webhook?: string;
  /** executionTimeout: ms of processing before TIMED_OUT; ttl: ms the job may live in all */
  policy?: { executionTimeout?: number; ttl?: number };
}

/** `output` of a COMPLETED job. */
export interface RemoteOutput {
  duration_seconds: number;
  frames: number;
  notes: string[];
  width?: number;
  height?: number;
  model_used?: string;
  output_bytes?: number;
}

export interface RemoteStatus {
  id: string;
  status: RemoteStatusName;
  /** ms spent waiting in the queue */
  delayTime?: number;
  /** ms spent processing */
  executionTime?: number;
  /** 0..100 while IN_PROGRESS (Backdrop's progress field) */
  progress?: number;
  output?: RemoteOutput;
  /** message of a FAILED job */
  error?: string;
  /** one of the API's job failure codes, when the failure has one */
  errorCode?: string;
}

export interface RemoteHealth {
  jobs: { completed: number; failed: number; inProgress: number; inQueue: number; retried: number };
  workers: { idle: number; running: number };
}

export function isRemoteStatusName(value: unknown): value is RemoteStatusName {
  return typeof value === 'string' && (REMOTE_STATUSES as readonly string[]).includes(value);
}

export function isJobFailureCode(value: unknown): value is JobFailureCode {
  return typeof value === 'string' && (JOB_FAILURE_CODES as readonly string[]).includes(value);
}

/** The status object of a reply body, or null when it is not one. */
export function parseRemoteStatus(body: unknown): RemoteStatus | null {
  if (!body || typeof body !== 'object') return null;
  const candidate = body as Record<string, unknown>;
  if (typeof candidate.id !== 'string' || !isRemoteStatusName(candidate.status)) return null;
  return candidate as unknown as RemoteStatus;
}

/**
 * The output of a COMPLETED status, or null when it lacks what the job needs: some seconds and
 * frames processed (the job is charged the seconds; a worker saying 0 or -500 had it completed free).
 */
export function parseRemoteOutput(output: unknown): RemoteOutput | null {
  if (!output || typeof output !== 'object') return null;
  const candidate = output as Record<string, unknown>;
  if (typeof candidate.duration_seconds !== 'number' || !Number.isFinite(candidate.duration_seconds) || candidate.duration_seconds <= 0) return null;
  if (typeof candidate.frames !== 'number' || !Number.isInteger(candidate.frames) || candidate.frames < 1) return null;
  const notes = Array.isArray(candidate.notes) ? candidate.notes.filter((note): note is string => typeof note === 'string') : [];
  return { ...(candidate as unknown as RemoteOutput), notes };
}
