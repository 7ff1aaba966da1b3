import { createHmac } from 'node:crypto';
import { checkSignature, PreviousSecret, SignatureCheck, signersOf } from '../../../common/signature-check';

export type { SignatureCheck };

/**
 * HMAC-SHA256 signatures for expiring local-storage URLs. Download URLs cover the path, the expiry
 * and the download name; upload URLs cover the path and the expiry under a key derived for uploads
 * only, so a download link can never be replayed as an upload (nor the reverse). URLs are signed
 * with `secret`; those signed with a `previous` one are accepted too, within the expiries it accepts.
 */
export class UrlSigner {
  private readonly downloadKey: string;
  private readonly uploadKey: Buffer;
  private readonly previousDownloadKeys: Array<{ key: string; expiringBy?: number }>;
  private readonly previousUploadKeys: Array<{ key: Buffer; expiringBy?: number }>;

  constructor(secret: string, previous: readonly PreviousSecret[] = []) {
    this.downloadKey = secret;
    this.uploadKey = uploadKeyOf(secret);
    this.previousDownloadKeys = previous.map(({ secret: key, expiringBy }) => ({ key, expiringBy }));
    this.previousUploadKeys = previous.map(({ secret: key, expiringBy }) => ({ key: uploadKeyOf(key), expiringBy }));
  }

  sign(key: string, expiresAt: number, downloadName = ''): string {
    return signDownload(this.downloadKey, key, expiresAt, downloadName);
  }

  verify(key: string, expires: string | undefined, signature: string | undefined, downloadName = '', nowSeconds = Math.floor(Date.now() / 1000)): SignatureCheck {
    return checkSignature(signersOf(this.downloadKey, this.previousDownloadKeys, (secret, expiresAt) => signDownload(secret, key, expiresAt, downloadName)), expires, signature, nowSeconds);
  }

  signUpload(key: string, expiresAt: number): string {
    return signUpload(this.uploadKey, key, expiresAt);
  }

  verifyUpload(key: string, expires: string | undefined, signature: string | undefined, nowSeconds = Math.floor(Date.now() / 1000)): SignatureCheck {
    return checkSignature(signersOf(this.uploadKey, this.previousUploadKeys, (secret, expiresAt) => signUpload(secret, key, expiresAt)), expires, signature, nowSeconds);
  }
}

const uploadKeyOf = (secret: string): Buffer => createHmac('sha256', secret).update('backdrop local upload urls v1').digest();
const signDownload = (secret: string, key: string, expiresAt: number, downloadName: string): string => createHmac('sha256', secret).update(`${key}\n${expiresAt}\n${downloadName}`).digest('hex');
const signUpload = (secret: Buffer, key: string, expiresAt: number): string => createHmac('sha256', secret).update(`${key}\n${expiresAt}`).digest('hex');

/** The API's `/files` URLs (FilesController) for an object: what every adapter without presigned URLs of its own hands out. */
export class FilesUrls {
  constructor(
    private readonly publicBaseUrl: string,
    private readonly signer: UrlSigner,
  ) {}

  /**
   * A URL that lives all of `ttlSeconds` to a tenth longer: its expiry falls on a step of a tenth of the TTL,
   * so the polls of a job within a step get the same URL, which a browser's cache (and a page's
   * <video>) keeps. Signed to the second, each poll's URL was new, and a page showing the output
   * downloaded it again on each. Rounded up, never down: a remote worker's input URL keeps its margin
   * past the job's timeout. S3 hands a URL out again while 90% of its life is left (s3.object-storage.ts).
   */
  download(key: string, ttlSeconds: number, downloadName = ''): string {
    const step = Math.max(1, Math.floor(ttlSeconds / 10));
    const expires = Math.ceil((Math.floor(Date.now() / 1000) + ttlSeconds) / step) * step;
    const query = new URLSearchParams({ expires: String(expires), signature: this.signer.sign(key, expires, downloadName) });
    if (downloadName) query.set('name', downloadName);
    return `${this.publicBaseUrl}/files/${key}?${query.toString()}`;
  }

  upload(key: string, ttlSeconds: number): string {
    const expires = Math.floor(Date.now() / 1000) + ttlSeconds;
    const query = new URLSearchParams({ expires: String(expires), signature: this.signer.signUpload(key, expires) });
    return `${this.publicBaseUrl}/files/${key}?${query.toString()}`;
  }
}
