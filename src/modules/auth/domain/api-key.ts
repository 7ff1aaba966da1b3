import { timingSafeEqual } from 'node:crypto';
import { API_KEY_PREFIX, fingerprintOf, hashApiKey } from '../../../common/api-key-format';
import { randomBase62 } from '../../../common/ids';
import { PreviousWebhookSecret } from '../../../common/webhook-secret';

export { API_KEY_PREFIX, fingerprintOf, hashApiKey, looksLikeApiKey } from '../../../common/api-key-format';

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
  /** secrets rotations replaced, each still signing deliveries beside the key's own until its `validUntil` (expired ones may linger until the next rotation) */
  previousWebhookSecrets: PreviousWebhookSecret[];
  createdAt: Date;
}

export interface IssuedKey {
  plaintext: string;
  keyHash: string;
  fingerprint: string;
}

export function issueApiKey(): IssuedKey {
  const plaintext = `${API_KEY_PREFIX}${randomBase62(32)}`;
  const keyHash = hashApiKey(plaintext);
  return { plaintext, keyHash, fingerprint: fingerprintOf(keyHash) };
}

const EVEN_HEX = /^(?:[0-9a-fA-F]{2})*$/;

/** Buffer.from(s, 'hex') silently drops non-hex and odd trailing digits, so the shape is checked first. */
export function constantTimeEqualHex(a: string, b: string): boolean {
  if (!EVEN_HEX.test(a) || !EVEN_HEX.test(b)) return false;
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The most credits a key is created with, or granted or deducted, at once (the admin API and CLI). */
export const MAX_CREDITS_AT_ONCE = 1_000_000_000;
