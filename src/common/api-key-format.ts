import { createHash } from 'node:crypto';

/** Every API key is this prefix and 32 base62 characters (the API contract's key format). */
export const API_KEY_PREFIX = 'bd_live_';
export const API_KEY_PATTERN = /^bd_live_[0-9A-Za-z]{32}$/;
/** The same, to find keys inside text (logs). */
export const API_KEY_IN_TEXT = /bd_live_[0-9A-Za-z]{32}/g;

export function hashApiKey(plaintext: string): string {
  return createHash('sha256').update(plaintext, 'utf8').digest('hex');
}

/** The first 12 hex characters of the hash: safe to log and show, enough to tell keys apart. */
export function fingerprintOf(keyHash: string): string {
  return keyHash.slice(0, 12);
}

/** Cheap shape check so obviously malformed keys never reach the database. */
export function looksLikeApiKey(candidate: string): boolean {
  return API_KEY_PATTERN.test(candidate);
}
