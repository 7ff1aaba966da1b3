import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { createReadStream, createWriteStream, promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { S3StorageConfig } from '../../../../config/app-config';
import { attachmentDisposition, contentTypeOf } from '../../application/content-types';
import { assertSafeKey, ByteRange, ListedObject, ObjectNotFoundError, ObjectStorage, StoredObject } from '../../ports/object-storage';

/**
 * A presigned download URL is handed out again while this share of its life is left: signing one
 * took 0.4 ms of CPU, more than the rest of a status poll, and a list of 100 completed jobs 40 ms.
 */
const REUSE_WHILE_LIFE_LEFT = 0.9;
/** presigned download URLs kept for reuse, the oldest dropped first */
const MAX_REUSED_URLS = 10_000;

/**
 * Multipart part size: the uploader holds about PART_BYTES × (PARTS_IN_FLIGHT + 1) of a stream in
 * memory, for each upload in flight (24 MB; 4 parts in flight held about 40 MB an upload).
 */
const PART_BYTES = 8 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;

function isNotFound(error: unknown): boolean {
  return error instanceof S3ServiceException && (error.$metadata.httpStatusCode === 404 || error.name === 'NotFound' || error.name === 'NoSuchKey');
}

/** Why S3 refused a HeadBucket, in words for /health. */
function bucketProblem(bucket: string, error: S3ServiceException): string {
  const status = error.$metadata.httpStatusCode;
  if (status === 404) return `bucket ${bucket} does not exist`;
  if (status === 403) return `access to bucket ${bucket} denied`;
  return `bucket ${bucket}: ${error.name}${status ? ` (HTTP ${status})` : ''}`;
}

/**
 * Objects in an S3-compatible bucket (AWS S3, MinIO, R2, ...). Streams go up as multipart uploads,
 * never whole in memory; clients download and upload through presigned URLs.
 */
export class S3ObjectStorage extends ObjectStorage {
  private readonly client: S3Client;
  private readonly bucket: string;
  /** presigned download URLs by TTL, download name and key, with when they expire (ms) */
  private readonly downloadUrls = new Map<string, { url: string; expiresAt: number }>();
  /**
   * URLs are reused only when signed with static keys: with the SDK's credential chain (an IAM
   * role's session) a URL dies with the session that signed it, whatever its own expiry says.
   */
  private readonly reusesDownloadUrls: boolean;

  /** `now`: the signing clock (a test's) */
  constructor(
    config: S3StorageConfig,
    private readonly now: () => number = Date.now,
  ) {
    super();
    this.bucket = config.bucket;
    this.reusesDownloadUrls = config.credentials !== undefined;
    this.client = new S3Client({
      region: config.region,
      endpoint: config.endpoint,
      forcePathStyle: config.forcePathStyle,
      credentials: config.credentials,
      // Checksums only where S3 requires them: S3-compatible servers do not all accept the SDK's default CRC trailers.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async put(key: string, body: Readable): Promise<StoredObject> {
    assertSafeKey(key);
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: body, ContentType: contentTypeOf(key) },
      partSize: PART_BYTES,
      queueSize: PARTS_IN_FLIGHT,
      leavePartsOnError: false,
    });
    // A failed multipart upload is aborted by the uploader; nothing becomes visible at `key`.
    await upload.done();
    const stored = await this.stat(key);
    if (!stored) throw new Error(`S3 object ${key} missing right after its upload`);
    return { key, size: stored.size };
  }

  async putFile(key: string, localPath: string): Promise<StoredObject> {
    return this.put(key, createReadStream(localPath));
  }

  async openRead(key: string, range?: ByteRange): Promise<Readable> {
    assertSafeKey(key);
    try {
      const object = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
      );
      return object.Body as Readable;
    } catch (error) {
      if (isNotFound(error)) throw new ObjectNotFoundError(key);
      throw error;
    }
  }

  async stat(key: string): Promise<ListedObject | null> {
    assertSafeKey(key);
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { key, size: head.ContentLength ?? 0, modifiedAt: head.LastModified ?? new Date(0) };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    assertSafeKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async *list(prefix: string): AsyncIterable<ListedObject> {
    let ContinuationToken: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken }));
      for (const object of page.Contents ?? []) {
        if (object.Key && object.LastModified) yield { key: object.Key, size: object.Size ?? 0, modifiedAt: object.LastModified };
      }
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
  }

  /** an upload cut short leaves no object here, only multipart parts, which the bucket's lifecycle rule removes */
  async removeInterruptedWrites(): Promise<number> {
    return 0;
  }

  /** Downloads the object into a private temporary directory, removed when `use` settles. */
  async withLocalFile<T>(key: string, use: (path: string) => Promise<T>): Promise<T> {
    const dir = await fs.mkdtemp(path.join(tmpdir(), 'backdrop-s3-'));
    try {
      const local = path.join(dir, path.basename(key));
      await pipeline(await this.openRead(key), createWriteStream(local, { flags: 'wx' }));
      return await use(local);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * Served with the type its extension implies, whatever an uploader sent. The same URL is handed
   * out again while most of its life is left (REUSE_WHILE_LIFE_LEFT; static keys only): it names
   * one key, so a reuse grants nothing a new one would not.
   */
  async signedDownloadUrl(key: string, ttlSeconds: number, downloadName?: string): Promise<string> {
    assertSafeKey(key);
    const reuseKey = `${ttlSeconds}\n${downloadName ?? ''}\n${key}`;
    const now = this.now();
    const kept = this.reusesDownloadUrls ? this.downloadUrls.get(reuseKey) : undefined;
    if (kept && kept.expiresAt - now >= ttlSeconds * 1000 * REUSE_WHILE_LIFE_LEFT) return kept.url;
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: key,
      ResponseContentType: contentTypeOf(key),
      ResponseContentDisposition: downloadName ? attachmentDisposition(downloadName) : undefined,
    });
    const url = await getSignedUrl(this.client, command, { expiresIn: ttlSeconds, signingDate: new Date(now) });
    if (!this.reusesDownloadUrls) return url;
    this.downloadUrls.delete(reuseKey);
    if (this.downloadUrls.size >= MAX_REUSED_URLS) this.downloadUrls.delete(this.downloadUrls.keys().next().value!);
    this.downloadUrls.set(reuseKey, { url, expiresAt: now + ttlSeconds * 1000 });
    return url;
  }

  async signedUploadUrl(key: string, ttlSeconds: number): Promise<string> {
    assertSafeKey(key);
    return getSignedUrl(this.client, new PutObjectCommand({ Bucket: this.bucket, Key: key }), { expiresIn: ttlSeconds });
  }

  async check(): Promise<string> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
      return 'ok';
    } catch (error) {
      // a network error names the endpoint's host and address: thrown, it goes to the log, not to the public /health
      if (!(error instanceof S3ServiceException)) throw error;
      return bucketProblem(this.bucket, error);
    }
  }

  /** Closes the client's sockets (Nest calls this at shutdown). */
  onApplicationShutdown(): void {
    this.client.destroy();
  }
}
