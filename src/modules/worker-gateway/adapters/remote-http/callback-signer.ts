import { createHmac, timingSafeEqual } from 'node:crypto';

export type CallbackCheck = 'valid' | 'expired' | 'invalid';

export const CALLBACK_PATH = 'internal/worker-callbacks';

/**
 * Signs the webhook URL a remote worker POSTs its final status to: HMAC-SHA256 over the job id and
 * the expiry, under a key derived from the instance's URL-signing secret for callbacks only (so a
 * storage link can never be replayed as a callback, nor the reverse). The worker needs no secret:
 * it posts to the URL it was given.
 */
export class CallbackSigner {
  private readonly key: Buffer;

  constructor(urlSigningSecret: string) {
    this.key = createHmac('sha256', urlSigningSecret).update('backdrop worker callbacks v1').digest();
  }

  url(publicBaseUrl: string, jobId: string, ttlSeconds: number, nowSeconds = Math.floor(Date.now() / 1000)): string {
    const expires = nowSeconds + ttlSeconds;
    const query = new URLSearchParams({ expires: String(expires), signature: this.sign(jobId, expires) });
    return `${publicBaseUrl}/${CALLBACK_PATH}/${encodeURIComponent(jobId)}?${query.toString()}`;
  }

  verify(jobId: string, expires: string | undefined, signature: string | undefined, nowSeconds = Math.floor(Date.now() / 1000)): CallbackCheck {
    if (!expires || !signature || !/^\d{1,12}$/.test(expires) || !/^[0-9a-f]{64}$/.test(signature)) return 'invalid';
    const expected = Buffer.from(this.sign(jobId, Number(expires)), 'hex');
    if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) return 'invalid';
    return Number(expires) < nowSeconds ? 'expired' : 'valid';
  }

  private sign(jobId: string, expires: number): string {
    return createHmac('sha256', this.key).update(`${jobId}\n${expires}`).digest('hex');
  }
}
