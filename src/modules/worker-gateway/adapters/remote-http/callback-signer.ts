import { createHmac } from 'node:crypto';
import { checkSignature, PreviousSecret, SignatureCheck, signersOf } from '../../../../common/signature-check';

export type CallbackCheck = SignatureCheck;

export const CALLBACK_PATH = 'internal/worker-callbacks';

/**
 * Signs the webhook URL a remote worker POSTs its final status to: HMAC-SHA256 over the job id and
 * the expiry, under a key derived from the instance's URL-signing secret for callbacks only (so a
 * storage link can never be replayed as a callback, nor the reverse). The worker needs no secret:
 * it posts to the URL it was given.
 */
export class CallbackSigner {
  private readonly key: Buffer;
  /** from previous URL-signing secrets: accepted, never used to sign */
  private readonly previousKeys: Array<{ key: Buffer; expiringBy?: number }>;

  constructor(urlSigningSecret: string, previous: readonly PreviousSecret[] = []) {
    this.key = callbackKeyOf(urlSigningSecret);
    this.previousKeys = previous.map(({ secret, expiringBy }) => ({ key: callbackKeyOf(secret), expiringBy }));
  }

  url(publicBaseUrl: string, jobId: string, ttlSeconds: number, nowSeconds = Math.floor(Date.now() / 1000)): string {
    const expires = nowSeconds + ttlSeconds;
    const query = new URLSearchParams({ expires: String(expires), signature: this.sign(jobId, expires) });
    return `${publicBaseUrl}/${CALLBACK_PATH}/${encodeURIComponent(jobId)}?${query.toString()}`;
  }

  verify(jobId: string, expires: string | undefined, signature: string | undefined, nowSeconds = Math.floor(Date.now() / 1000)): CallbackCheck {
    return checkSignature(signersOf(this.key, this.previousKeys, (key, expiresAt) => signCallback(key, jobId, expiresAt)), expires, signature, nowSeconds);
  }

  private sign(jobId: string, expires: number): string {
    return signCallback(this.key, jobId, expires);
  }
}

const signCallback = (key: Buffer, jobId: string, expires: number): string => createHmac('sha256', key).update(`${jobId}\n${expires}`).digest('hex');

const callbackKeyOf = (secret: string): Buffer => createHmac('sha256', secret).update('backdrop worker callbacks v1').digest();
