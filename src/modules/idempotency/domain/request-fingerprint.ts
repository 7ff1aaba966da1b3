import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level: two bodies that differ only in key order are the same body. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item === undefined ? null : item)).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * What "the same request" means for an Idempotency-Key: the method, the path (so a key reused on
 * another job or endpoint is a mismatch) and the body. A multipart upload is not read before the
 * check (its file is streamed, not buffered), so its fingerprint holds the route alone: its files
 * are compared by digest once they have arrived (`bodyDigest` of the store).
 */
export function requestFingerprint(method: string, path: string, body: { json: unknown } | 'multipart'): string {
  const described = body === 'multipart' ? 'multipart' : canonicalJson(body.json);
  return createHash('sha256').update(`${method.toUpperCase()} ${path}\n${described}`).digest('hex');
}
