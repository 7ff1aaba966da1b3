import { timingSafeEqual } from 'node:crypto';

export type SignatureCheck = 'valid' | 'expired' | 'invalid';

/** a secret URLs were signed with before a rotation: accepted (never used to sign), for URLs expiring by `expiringBy` (Unix seconds) where set */
export interface PreviousSecret {
  secret: string;
  expiringBy?: number;
}

/**
 * Checks an expiring URL's HMAC-SHA256 signature (64 hex digits) against `signers`, one per secret
 * accepted (the current one and those of a rotation's grace; null where that secret does not accept
 * the expiry): valid, expired (a signature of one of them, past `expires`) or invalid.
 */
export function checkSignature(signers: ReadonlyArray<(expiresAt: number) => string | null>, expires: string | undefined, signature: string | undefined, nowSeconds: number): SignatureCheck {
  if (!expires || !signature || !/^\d{1,12}$/.test(expires) || !/^[0-9a-f]{64}$/.test(signature)) return 'invalid';
  const given = Buffer.from(signature, 'hex');
  const signs = (sign: (expiresAt: number) => string | null) => {
    const expected = sign(Number(expires));
    return expected !== null && timingSafeEqual(Buffer.from(expected, 'hex'), given);
  };
  if (!signers.some(signs)) return 'invalid';
  return Number(expires) < nowSeconds ? 'expired' : 'valid';
}

/** the signers of the current secret and the previous ones, each previous one only for the expiries it accepts */
export function signersOf<K>(current: K, previous: ReadonlyArray<{ key: K; expiringBy?: number }>, sign: (key: K, expiresAt: number) => string): Array<(expiresAt: number) => string | null> {
  return [(expiresAt: number) => sign(current, expiresAt), ...previous.map(({ key, expiringBy }) => (expiresAt: number) => (expiringBy !== undefined && expiresAt > expiringBy ? null : sign(key, expiresAt)))];
}
