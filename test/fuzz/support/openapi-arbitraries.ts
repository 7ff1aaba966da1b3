import fc from 'fast-check';

/** The parts of an OpenAPI 3 document the fuzzer reads. */
export interface SchemaObject {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  properties?: Record<string, SchemaObject>;
  required?: string[];
  items?: SchemaObject;
  additionalProperties?: SchemaObject | boolean;
  oneOf?: SchemaObject[];
  allOf?: SchemaObject[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  format?: string;
}

export interface Operation {
  method: string;
  path: string;
  parameters: Array<{ name: string; in: string; schema?: SchemaObject }>;
  bodyType?: 'json' | 'multipart';
  bodySchema?: SchemaObject;
  security: 'apiKey' | 'adminToken' | 'none';
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, { parameters?: Operation['parameters']; requestBody?: { content: Record<string, { schema: SchemaObject }> }; security?: Array<Record<string, unknown>> }>>;
  components: { schemas: Record<string, SchemaObject> };
}

/** Every operation of the document. */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const content = op.requestBody?.content ?? {};
      const security = op.security?.some((entry) => 'adminToken' in entry) ? 'adminToken' : op.security?.some((entry) => 'apiKey' in entry) ? 'apiKey' : 'none';
      const bodyType = content['application/json'] ? 'json' : content['multipart/form-data'] ? 'multipart' : undefined;
      return {
        method: method.toUpperCase(),
        path,
        parameters: op.parameters ?? [],
        bodyType,
        bodySchema: bodyType ? Object.values(content)[0].schema : undefined,
        security: security as Operation['security'],
      } satisfies Operation;
    }),
  );
}

const printable = fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code));

/** Strings a hostile or careless client sends: empty, unicode, control characters, long, huge, look-alike URLs and numbers. */
export const nastyString = (context: FuzzContext): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
    { weight: 1, arbitrary: fc.constantFrom('', ' ', '\u0000', '%00', '../../etc/passwd', "' OR 1=1 --", '{"$gt":""}', '<script>alert(1)</script>', '__proto__', 'constructor', 'NaN', '-0', '1e309', '٣') },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 200_000 }).map((n) => 'x'.repeat(n)) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'http://93.184.216.34/video.mp4',
        'https://example.com/a.mp4',
        'http://127.0.0.1/',
        'http://[::1]/',
        'http://169.254.169.254/',
        'file:///etc/passwd',
        'gopher://127.0.0.1:6379/_',
        'http://0x7f000001/',
        'http://localhost:1/',
        `${context.baseUrl}/v1/uploads/${context.uploadId}`,
        `${context.baseUrl}/v1/uploads/vid_${'0'.repeat(26)}`,
        'https://' + 'a'.repeat(3000) + '.com/',
      ),
    },
  );

/** Any JSON value: what arrives when a client sends the wrong type. */
export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.string({ maxLength: 10 }),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }),
);

export interface FuzzContext {
  baseUrl: string;
  jobId: string;
  uploadId: string;
  fingerprint: string;
}

function resolve(doc: OpenApiDocument, schema: SchemaObject): SchemaObject {
  if (schema.$ref) return resolve(doc, doc.components.schemas[schema.$ref.split('/').pop() as string]);
  if (schema.allOf?.length) return resolve(doc, schema.allOf[0]);
  return schema;
}

/** Numbers at and just past the schema's bounds, plus anything a double can be. */
function numberArbitrary(schema: SchemaObject): fc.Arbitrary<number> {
  const bounds = [schema.minimum, schema.maximum].filter((value): value is number => value !== undefined);
  const edges = bounds.flatMap((bound) => [bound, bound - 1, bound + 1, bound - 0.01, bound + 0.01]);
  return fc.oneof(
    { weight: 3, arbitrary: edges.length ? fc.constantFrom(...edges) : fc.integer({ min: -5, max: 5 }) },
    { weight: 2, arbitrary: fc.integer({ min: -1_000_000, max: 1_000_000 }) },
    { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
    { weight: 1, arbitrary: fc.constantFrom(0, -0, 1e308, -1e308, Number.MAX_SAFE_INTEGER, 2 ** 64) },
  );
}

/** Values for a schema: mostly of the right shape (so validation is passed and deeper code runs), sometimes anything. */
export function arbitraryFor(doc: OpenApiDocument, raw: SchemaObject, context: FuzzContext, field = '', depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(doc, raw);
  const wrongType = anyJson;
  let right: fc.Arbitrary<unknown>;
  if (schema.oneOf?.length) right = fc.oneof(...schema.oneOf.map((option) => arbitraryFor(doc, option, context, field, depth + 1)));
  else if (schema.enum) right = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...schema.enum) }, { weight: 1, arbitrary: nastyString(context) });
  else if (schema.type === 'string') {
    const limit = schema.maxLength;
    right = limit ? fc.oneof(nastyString(context), fc.constantFrom('y'.repeat(limit), 'y'.repeat(limit + 1))) : field === 'key_fingerprint' ? fc.oneof(fc.constant(context.fingerprint), nastyString(context)) : nastyString(context);
  } else if (schema.type === 'number' || schema.type === 'integer') right = numberArbitrary(schema);
  else if (schema.type === 'boolean') right = fc.boolean();
  else if (schema.type === 'array') right = fc.array(schema.items && depth < 4 ? arbitraryFor(doc, schema.items, context, field, depth + 1) : anyJson, { maxLength: 5 });
  else if (schema.type === 'object' || schema.properties) {
    const properties = Object.entries(schema.properties ?? {});
    const shaped =
      depth > 4
        ? fc.constant({})
        : fc.record(Object.fromEntries(properties.map(([name, property]) => [name, arbitraryFor(doc, property, context, name, depth + 1)])), { requiredKeys: [] });
    const extra = fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('__proto__', 'constructor', 'toString')), anyJson, { maxKeys: 3 });
    const additional = schema.additionalProperties && typeof schema.additionalProperties === 'object' ? fc.dictionary(fc.string({ maxLength: 30 }), arbitraryFor(doc, schema.additionalProperties, context, field, depth + 1), { maxKeys: 25 }) : fc.constant({});
    right = fc.tuple(shaped, extra, additional, fc.boolean()).map(([known, unknown, more, withUnknown]) => (properties.length ? { ...(withUnknown ? unknown : {}), ...known } : { ...more, ...(withUnknown ? unknown : {}) }));
  } else right = anyJson;
  return fc.oneof({ weight: 6, arbitrary: right }, { weight: 1, arbitrary: wrongType });
}

/** Header values (printable ASCII only: anything else Node refuses to send). */
export const headerValue = (maxLength: number): fc.Arbitrary<string> => fc.string({ unit: printable, maxLength });
