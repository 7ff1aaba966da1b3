import type { Request } from 'express';
import type { StorageEngine } from 'multer';
import { DomainError } from '../../../../common/errors/domain-error';
import { DigestingPassThrough } from '../../../../common/http/multipart-digest';
import { peek } from '../../../../common/streams/peek';
import { StoredUploadBody, UploadsService } from '../../application/uploads.service';
import { describeContent, SNIFF_BYTES, sniffVideoType } from '../../../../engine/media/sniff';

export interface UploadedVideoFile extends Express.Multer.File {
  stored: StoredUploadBody;
  /** of the file's bytes: an upload's replay under its Idempotency-Key is answered only with the same bytes */
  sha256: string;
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
    const { head, replay } = await peek(file.stream, SNIFF_BYTES, new DigestingPassThrough());
    file.stream.on('limit', () => replay.destroy(new DomainError('file_too_large', 'File too large')));
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
