import { createHash, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from '../../../common/ids';

export const API_KEY_PREFIX = 'bd_live_';

/** An API key as the domain sees it: never the plaintext, only its hash and fingerprint. */
export interface ApiKey {
  id: string;
  clientId: string;
  note: string | null;
  keyHash: string;
  fingerprint: string;
  enabled: boolean;
  credits: number;
  webhookSecret: string | null;
  createdAt: Date;
}

export interface IssuedKey {
  plaintext: string;
  keyHash: string;
  fingerprint: string;
}

export function hashApiKey(plaintext: string): string {
  return createHash('sha256').update(plaintext, 'utf8').digest('hex');
}

/** The first 12 hex characters of the hash: safe to log and show, enough to tell keys apart. */
export function fingerprintOf(keyHash: string): string {
  return keyHash.slice(0, 12);
}

export function issueApiKey(): IssuedKey {
  const plaintext = `${API_KEY_PREFIX}${randomBase62(32)}`;
  const keyHash = hashApiKey(plaintext);
  return { plaintext, keyHash, fingerprint: fingerprintOf(keyHash) };
}

/** Cheap shape check so obviously malformed keys never reach the database. */
export function looksLikeApiKey(candidate: string): boolean {
  return /^bd_live_[0-9A-Za-z]{32}$/.test(candidate);
}

const EVEN_HEX = /^(?:[0-9a-fA-F]{2})*$/;

/** Buffer.from(s, 'hex') silently drops non-hex and odd trailing digits, so the shape is checked first. */
export function constantTimeEqualHex(a: string, b: string): boolean {
  if (!EVEN_HEX.test(a) || !EVEN_HEX.test(b)) return false;
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
