import type { OpenAPIObject } from '@nestjs/swagger';
import { ERROR_HTTP_STATUS } from '../errors/error-codes';

const ENVELOPE_REF = '#/components/schemas/ErrorEnvelope';

/** the contract's error envelope, as every /v1 and /api error answers it (error-envelope.ts) */
const ERROR_ENVELOPE_SCHEMA = {
  type: 'object',
  required: ['success', 'error'],
  properties: {
    success: { type: 'boolean', enum: [false] },
    error: {
      type: 'object',
      required: ['code', 'message', 'request_id'],
      properties: {
        code: { type: 'string', enum: Object.keys(ERROR_HTTP_STATUS) },
        message: { type: 'string' },
        request_id: { type: 'string', description: 'also in the X-Request-Id header' },
        details: { type: 'array', description: 'invalid_request: one per bad field', items: { type: 'object', required: ['field', 'message'], properties: { field: { type: 'string' }, message: { type: 'string' } } } },
      },
    },
  },
};

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: ENVELOPE_REF } } } });

/**
 * Says in the OpenAPI document how the API answers errors, which the routes' decorators did not:
 * every /v1 and /api operation gets the envelope as its `default` response (a 429 with Retry-After
 * on keyed ones), /health its 503. A client generated from the document had no type for any error.
 */
export function withErrorResponses(document: OpenAPIObject): OpenAPIObject {
  document.components = { ...document.components, schemas: { ...document.components?.schemas, ErrorEnvelope: ERROR_ENVELOPE_SCHEMA } };
  for (const [path, item] of Object.entries(document.paths)) {
    for (const operation of Object.values(item as Record<string, { responses?: Record<string, unknown>; security?: Record<string, string[]>[] }>)) {
      if (!operation || typeof operation !== 'object' || !operation.responses) continue;
      if (path === '/health' || path === '/health/ready') operation.responses['503'] = { description: 'not healthy (or not ready): the failing checks are named' };
      if (!path.startsWith('/v1/') && !path.startsWith('/api/')) continue;
      operation.responses.default = errorResponse('An error, in the contract envelope; its status is the code\'s (contract.md)');
      if (operation.security?.some((scheme) => 'apiKey' in scheme)) operation.responses['429'] = { ...errorResponse('rate_limited: past the key\'s limit'), headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'seconds' } } };
    }
  }
  return document;
}
