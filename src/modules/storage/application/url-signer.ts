import { createHmac, timingSafeEqual } from 'node:crypto';

export type SignatureCheck = 'valid' | 'expired' | 'invalid';

/** HMAC-SHA256 signatures for expiring local-storage URLs: the path, the expiry and the download name are covered. */
export class UrlSigner {
  constructor(private readonly secret: string) {}

  sign(key: string, expiresAt: number, downloadName = ''): string {
    return createHmac('sha256', this.secret).update(`${key}\n${expiresAt}\n${downloadName}`).digest('hex');
  }

  verify(key: string, expires: string | undefined, signature: string | undefined, downloadName = '', nowSeconds = Math.floor(Date.now() / 1000)): SignatureCheck {
    if (!expires || !signature || !/^\d{1,12}$/.test(expires) || !/^[0-9a-f]{64}$/.test(signature)) return 'invalid';
    const expected = Buffer.from(this.sign(key, Number(expires), downloadName), 'hex');
    if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) return 'invalid';
    return Number(expires) < nowSeconds ? 'expired' : 'valid';
  }
}
