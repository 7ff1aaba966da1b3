import type { Request } from 'express';
import type { StorageEngine } from 'multer';
import { Readable } from 'node:stream';
import { DomainError } from '../../../../common/errors/domain-error';
import { DigestingPassThrough } from '../../../../common/http/multipart-digest';
import { StoredUploadBody, UploadsService } from '../../application/uploads.service';
import { describeContent, SNIFF_BYTES, sniffVideoType } from '../../../../engine/media/sniff';

export interface UploadedVideoFile extends Express.Multer.File {
  stored: StoredUploadBody;
  /** of the file's bytes: an upload's replay under its Idempotency-Key is answered only with the same bytes */
  sha256: string;
}

/**
 * Reads the first bytes of a stream without losing them: resolves with the head and a stream
 * replaying everything, which hashes what it replays.
 */
function peek(stream: Readable, bytes: number): Promise<{ head: Buffer; replay: DigestingPassThrough }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const finish = (): void => {
      stream.off('data', onData);
      stream.off('end', finish);
      stream.off('error', reject);
      stream.pause();
      const head = Buffer.concat(chunks);
      const replay = new DigestingPassThrough();
      // The consumer attaches its own handlers later; an early error stays recorded on the stream (`errored`) for it.
      replay.on('error', () => undefined);
      replay.write(head);
      stream.on('error', (error) => replay.destroy(error));
      stream.on('limit', () => replay.destroy(new DomainError('file_too_large', 'File too large')));
      stream.pipe(replay);
      stream.resume();
      resolve({ head, replay });
    };
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      length += chunk.length;
      if (length >= bytes) finish();
    };
    stream.on('data', onData);
    stream.once('end', finish);
    stream.once('error', reject);
  });
}

/**
 * A multer storage engine that decides the type by the file's bytes, then streams the body straight
 * into object storage (never buffering the file); anything partial is removed on error or abort.
 */
export class VideoUploadStorageEngine implements StorageEngine {
  constructor(private readonly uploads: UploadsService) {}

  _handleFile(_req: Request, file: Express.Multer.File, callback: (error?: unknown, info?: Partial<UploadedVideoFile>) => void): void {
    this.store(file)
      .then(({ stored, sha256 }) => callback(null, { stored, size: stored.size, sha256 }))
      .catch((error) => callback(error));
  }

  _removeFile(_req: Request, file: Express.Multer.File, callback: (error: Error | null) => void): void {
    const stored = (file as Partial<UploadedVideoFile>).stored;
    if (!stored) return callback(null);
    this.uploads.discard(stored.storageKey).then(
      () => callback(null),
      (error: Error) => callback(error),
    );
  }

  private async store(file: Express.Multer.File): Promise<{ stored: StoredUploadBody; sha256: string }> {
    const { head, replay } = await peek(file.stream, SNIFF_BYTES);
    const contentType = sniffVideoType(head);
    if (!contentType) {
      replay.destroy();
      file.stream.resume();
      throw new DomainError('unsupported_media_type', `Unsupported file type (the bytes are ${describeContent(head)}): upload an mp4, mov, webm or avi video`);
    }
    const stored = await this.uploads.storeBody(replay, contentType);
    return { stored, sha256: replay.sha256() };
  }
}
