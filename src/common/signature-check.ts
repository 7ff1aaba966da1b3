import { timingSafeEqual } from 'node:crypto';

export type SignatureCheck = 'valid' | 'expired' | 'invalid';

/**
 * Checks an expiring URL's HMAC-SHA256 signature (64 hex digits) against `signers`, one per secret
 * accepted (the current one and those of a rotation's grace): valid, expired (a signature of one of
 * them, past `expires`) or invalid.
 */
export function checkSignature(signers: ReadonlyArray<(expiresAt: number) => string>, expires: string | undefined, signature: string | undefined, nowSeconds: number): SignatureCheck {
  if (!expires || !signature || !/^\d{1,12}$/.test(expires) || !/^[0-9a-f]{64}$/.test(signature)) return 'invalid';
  const given = Buffer.from(signature, 'hex');
  if (!signers.some((sign) => timingSafeEqual(Buffer.from(sign(Number(expires)), 'hex'), given))) return 'invalid';
  return Number(expires) < nowSeconds ? 'expired' : 'valid';
}
