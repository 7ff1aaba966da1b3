import { ApiOkResponse, OpenAPIObject } from '@nestjs/swagger';
import { ANCHORS, BG_TYPES, MODELS, OUTPUT_FORMATS } from '../../contract/job-settings';
import { JOB_STATUSES } from '../../contract/job-status';
import { JOB_FAILURE_CODES } from '../errors/error-codes';

/**
 * The bodies the API answers with, as OpenAPI 3.0 schemas (components/schemas of /openapi.json):
 * the shapes of src/contract/api-types.ts and of the controllers that build their own. A client
 * generated from the document had a type for every error and none for any answer. Each route names
 * its answer with `@Answers(...)`; test/unit/http/openapi-answers.spec.ts checks every real answer
 * against its schema.
 */
type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
/** OpenAPI 3.0.3: a nullable enum lists null among its values too */
const nullable = (schema: Schema): Schema => ({ ...schema, nullable: true, ...(Array.isArray(schema.enum) ? { enum: [...(schema.enum as unknown[]), null] } : {}) });
const object = (properties: Record<string, Schema>, description?: string): Schema => ({ type: 'object', required: Object.keys(properties), properties, ...(description ? { description } : {}) });
const withSuccess = (properties: Record<string, Schema>, description?: string): Schema => object({ success: { type: 'boolean', enum: [true] }, ...properties }, description);
const string: Schema = { type: 'string' };
const integer: Schema = { type: 'integer' };
const number: Schema = { type: 'number' };
const boolean: Schema = { type: 'boolean' };
const dateTime: Schema = { type: 'string', format: 'date-time' };
const stringMap: Schema = { type: 'object', additionalProperties: { type: 'string' } };
/** a model's price: CREDITS_PER_MINUTE_* may be fractional */
const numberMap: Schema = { type: 'object', additionalProperties: { type: 'number' } };
const arrayOf = (items: Schema): Schema => ({ type: 'array', items });

const rgb: Schema = { type: 'array', items: number, minItems: 3, maxItems: 3, description: 'red, green, blue' };

const JOB = object({
  id: string,
  job_id: { type: 'string', description: 'the same as id (the original service named it so)' },
  status: { type: 'string', enum: [...JOB_STATUSES] },
  progress: { type: 'number', minimum: 0, maximum: 100 },
  output_url: nullable({ type: 'string', description: 'a signed download link, once completed and until its retention ends' }),
  output_format: { type: 'string', enum: [...OUTPUT_FORMATS] },
  error: nullable(string),
  error_code: nullable({ type: 'string', enum: [...JOB_FAILURE_CODES] }),
  created_at: dateTime,
  started_at: nullable(dateTime),
  completed_at: nullable(dateTime),
  duration_seconds: nullable({ type: 'number', description: 'the seconds processed (and billed)' }),
  billing_status: nullable({ type: 'string', enum: ['reserved', 'charged', 'refunded', 'insufficient_credits'] }),
  credits_reserved: nullable(integer),
  credits_charged: nullable(integer),
  webhook_url: nullable(string),
  webhook_events: { ...stringMap, description: 'each event sent for the job, with its delivery status' },
  video_url: string,
  model: { type: 'string', enum: [...MODELS] },
  background: ref('Background'),
  composition: nullable({
    type: 'object',
    required: ['foreground'],
    properties: {
      canvas: object({ width: integer, height: integer }),
      foreground: object({ anchor: { type: 'string', enum: [...ANCHORS] }, scale: number, offset: object({ x: number, y: number }) }),
    },
  }),
  preview_duration: nullable(number),
  text_prompt: nullable(string),
  metadata: nullable(stringMap),
  notes: arrayOf(string),
});

const BACKGROUND: Schema = {
  type: 'object',
  required: ['type'],
  description: "the background as the job runs it: transparent, a colour (bg_type's named colours resolved), or an image (a draft's may still be null)",
  properties: { type: { type: 'string', enum: [...BG_TYPES] }, color: nullable(rgb), image_url: nullable(string) },
};

const USAGE_COUNTERS = object({ total_jobs: integer, completed_jobs: integer, failed_jobs: integer, credits_used: integer, video_seconds: number, requests: integer });

const KEY_PROPERTIES = { client_id: string, key_fingerprint: string, note: nullable(string), enabled: boolean, credits: integer, created_at: dateTime };

const HEALTH_CHECKS = { type: 'object', additionalProperties: { type: 'string' }, description: "each dependency's check: 'ok' or why it failed" };

/** Every answer's schema, by the name a route gives it in `@Answers`. */
const ANSWERS = {
  JobStatus: { allOf: [withSuccess({}), ref('Job')], description: 'GET /v1/jobs/{id}: the job, its fields at the top level' },
  JobSubmission: withSuccess({ id: string, status: { type: 'string', enum: [...JOB_STATUSES] }, message: string, job: ref('Job') }),
  JobsPage: withSuccess({ items: arrayOf(ref('Job')), jobs: { ...arrayOf(ref('Job')), description: 'the same as items' }, total: integer, limit: integer, offset: integer }),
  LegacyDownload: withSuccess({ download_url: nullable(string), output_format: { type: 'string', enum: [...OUTPUT_FORMATS] } }),
  Upload: withSuccess({ video_id: string, video_url: string, filename: string, size: integer, content_type: string, duration_seconds: nullable(number) }),
  WebhookSecret: withSuccess({ secret: { type: 'string', pattern: '^whsec_' }, previous_secret_valid_until: nullable(dateTime) }),
  UsageSummary: { allOf: [withSuccess({ days: integer, daily: arrayOf({ allOf: [object({ date: { type: 'string', format: 'date' } }), ref('UsageCounters')] }) }), ref('UsageCounters')] },
  UsageEvents: withSuccess({
    items: arrayOf(object({ id: integer, created_at: dateTime, method: string, path: string, status_code: integer, job_id: nullable(string), credits: integer, duration_ms: number })),
  }),
  Pricing: withSuccess({
    model_pricing_credits_per_minute: numberMap,
    price_per_second_cents: number,
    packages: arrayOf(object({ name: string, credits: number, price_cents: number, currency: string })),
  }),
  Models: withSuccess({
    models: arrayOf({
      type: 'object',
      required: ['name', 'description', 'credits_per_minute'],
      properties: {
        name: { type: 'string', enum: [...MODELS] },
        description: string,
        credits_per_minute: number,
        vocabulary: { ...arrayOf(object({ subject: string, synonyms: arrayOf(string) })), description: 'pro: the subjects text_prompt may name' },
        prompt_attributes: { type: 'object', description: 'pro: the words that describe a subject (colours, garments, positions, sizes, counts)' },
      },
    }),
  }),
  AdminConfig: withSuccess({
    role: { type: 'string', enum: ['api', 'worker', 'all'] },
    public_base_url: string,
    database: { type: 'string', enum: ['embedded', 'external'] },
    queue_backend: { type: 'string', enum: ['redis', 'postgres'] },
    storage: string,
    worker_gateway: { type: 'string', enum: ['local', 'remote', 'none'] },
    worker_concurrency: integer,
    max_upload_bytes: integer,
    max_video_seconds: number,
    signed_url_ttl_seconds: integer,
    allow_keyless_download: boolean,
    model_pricing_credits_per_minute: numberMap,
  }),
  AdminKeys: withSuccess({ items: arrayOf(object(KEY_PROPERTIES)) }),
  AdminKey: withSuccess(KEY_PROPERTIES),
  AdminKeyErased: withSuccess({
    ...KEY_PROPERTIES,
    erased: object({
      jobs_ended: { ...integer, description: 'jobs that were pending or processing, ended as canceled first' },
      jobs: { ...integer, description: "jobs whose client content was erased; their rows stay for accounting" },
      uploads: integer,
      files: { ...integer, description: 'stored files deleted: uploaded videos, outputs, and the inputs of the jobs it ended (those already gone counted too)' },
    }),
  }),
  AdminKeyCreated: withSuccess({ api_key: { type: 'string', description: 'shown once: only its hash is stored' }, key_fingerprint: string, client_id: string, note: nullable(string), credits: integer }),
  Health: object({ status: { type: 'string', enum: ['healthy'] }, checks: HEALTH_CHECKS }),
  Liveness: object({ status: { type: 'string', enum: ['ok'] } }),
} satisfies Record<string, Schema>;

export type AnswerSchema = keyof typeof ANSWERS;

/** The document with the schemas its routes' answers refer to. */
export function withAnswerSchemas(document: OpenAPIObject): OpenAPIObject {
  document.components = { ...document.components, schemas: { ...document.components?.schemas, ...ANSWERS, Job: JOB, Background: BACKGROUND, UsageCounters: USAGE_COUNTERS } };
  return document;
}

/** A route's 200 answer: the schema of that name. */
export const Answers = (name: AnswerSchema, description?: string) => ApiOkResponse({ description: description ?? name, schema: ref(name) });

/** A route's 200 answer that is a file, not JSON: its media types and what it is. */
export const AnswersFile = (mediaTypes: readonly string[], description: string) =>
  ApiOkResponse({ description, content: Object.fromEntries(mediaTypes.map((mediaType) => [mediaType, { schema: { type: 'string', format: 'binary' } }])) });
