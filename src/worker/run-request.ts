import { RunRequest } from '../common/worker-protocol/runpod-protocol';

const MODELS = ['original', 'light', 'pro', 'human'];
const FORMATS = ['webm', 'mov', 'mp4', 'gif', 'webp', 'png_sequence'];

export class RunRequestInvalid extends Error {
  readonly status = 400;
}

function httpUrl(value: unknown, field: string): string {
  if (typeof value !== 'string') throw new RunRequestInvalid(`${field} must be a URL`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new RunRequestInvalid(`${field} must be a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RunRequestInvalid(`${field} must be an http(s) URL`);
  return value;
}

function positive(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new RunRequestInvalid(`${field} must be a positive number`);
  return value;
}

function validateSegment(value: unknown): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'object') throw new RunRequestInvalid('input.segment must be an object');
  const segment = value as Record<string, unknown>;
  const seconds = (field: string, optional: boolean) => {
    const given = segment[field];
    if (optional && given === undefined) return;
    if (typeof given !== 'number' || !Number.isFinite(given) || given < 0) throw new RunRequestInvalid(`input.segment.${field} must be a number of seconds, 0 or more`);
  };
  seconds('start_seconds', false);
  seconds('end_seconds', true);
  seconds('preroll_seconds', false);
}

/**
 * Checks the shape of a /run body (the API built it; this catches other callers and version skew).
 * The settings' finer rules were applied by the API; the engine refuses what it cannot do.
 */
export function validateRunRequest(body: unknown): RunRequest {
  const request = (body ?? {}) as Partial<RunRequest>;
  const input = request.input as unknown as Record<string, unknown> | undefined;
  if (!input || typeof input !== 'object') throw new RunRequestInvalid('input is required');
  if (typeof input.job_id !== 'string' || !input.job_id) throw new RunRequestInvalid('input.job_id is required');
  httpUrl(input.input_url, 'input.input_url');
  httpUrl(input.output_upload_url, 'input.output_upload_url');
  if (input.background_image_url !== null && input.background_image_url !== undefined) httpUrl(input.background_image_url, 'input.background_image_url');
  const settings = input.settings as Record<string, unknown> | undefined;
  if (!settings || typeof settings !== 'object') throw new RunRequestInvalid('input.settings is required');
  if (!MODELS.includes(settings.model as string)) throw new RunRequestInvalid(`input.settings.model must be one of ${MODELS.join(', ')}`);
  if (!FORMATS.includes(settings.outputFormat as string)) throw new RunRequestInvalid(`input.settings.outputFormat must be one of ${FORMATS.join(', ')}`);
  if (!settings.background || typeof settings.background !== 'object') throw new RunRequestInvalid('input.settings.background is required');
  positive(input.max_duration_seconds, 'input.max_duration_seconds');
  const limits = input.media_limits as Record<string, unknown> | null | undefined;
  if (limits !== undefined && limits !== null) {
    if (typeof limits !== 'object') throw new RunRequestInvalid('input.media_limits must be an object');
    for (const name of ['max_video_width', 'max_video_height', 'max_video_pixels', 'max_image_pixels']) {
      if (positive(limits[name], `input.media_limits.${name}`) === undefined) throw new RunRequestInvalid(`input.media_limits.${name} is required`);
    }
    positive(limits.max_video_fps, 'input.media_limits.max_video_fps');
  }
  validateSegment(input.segment);
  if (request.webhook !== undefined) httpUrl(request.webhook, 'webhook');
  positive(request.policy?.executionTimeout, 'policy.executionTimeout');
  positive(request.policy?.ttl, 'policy.ttl');
  return {
    input: { ...(input as unknown as RunRequest['input']), background_image_url: (input.background_image_url as string | null | undefined) ?? null },
    webhook: request.webhook,
    policy: request.policy,
  };
}
