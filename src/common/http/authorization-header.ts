import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** `authorization: <secret>` (or `Bearer <secret>`), compared in constant time (digests of equal length). */
export function presentsSecret(header: string | undefined, secret: string): boolean {
  if (!header) return false;
  return timingSafeEqual(digest(header.replace(/^Bearer\s+/i, '')), digest(secret));
}
