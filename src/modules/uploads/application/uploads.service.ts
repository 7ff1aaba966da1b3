import { Inject, Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { APP_CONFIG, AppConfig } from '../../../config/app-config';
import { DomainError } from '../../../common/errors/domain-error';
import { UploadView } from '../../../contract/api-types';
import { isUploadId } from '../../../contract/ids';
import { Clock } from '../../../common/clock';
import { Ids } from '../../../common/ids';
import { UnitOfWork } from '../../../common/unit-of-work';
import { ApiKeyRepository, holdEnabledKey } from '../../auth/ports/api-key.repository';
import { ObjectStorage } from '../../storage/ports/object-storage';
import { storableFilename, Upload, uploadStorageKey } from '../domain/upload';
import { UploadedVideos } from '../ports/uploaded-videos';
import { UploadRepository } from '../ports/upload.repository';
import { isRefusal, SupportedVideoType, VideoProbe } from '../ports/video-probe';

export interface StoredUploadBody {
  uploadId: string;
  storageKey: string;
  contentType: SupportedVideoType;
  size: number;
}

export type { UploadView } from '../../../contract/api-types';

@Injectable()
export class UploadsService extends UploadedVideos {
  constructor(
    private readonly storage: ObjectStorage,
    private readonly uploads: UploadRepository,
    private readonly probe: VideoProbe,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly ids: Ids,
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
  ) {
    super();
  }

  /** Streams the body into storage under a fresh id; the caller has already checked the signature. */
  async storeBody(body: Readable, contentType: SupportedVideoType): Promise<StoredUploadBody> {
    const uploadId = this.ids.upload();
    const storageKey = uploadStorageKey(uploadId);
    const stored = await this.storage.put(storageKey, body);
    return { uploadId, storageKey, contentType, size: stored.size };
  }

  discard(storageKey: string): Promise<void> {
    return this.storage.delete(storageKey);
  }

  /**
   * The input gate confirms what the signature claimed: a file that does not decode is refused (415),
   * one over the size limits too (400 naming `file`). A body that does not become an upload (refused,
   * or its probe or its row failed) is removed: nothing else would ever refer to it.
   */
  async register(apiKeyId: string, filename: string, body: StoredUploadBody): Promise<UploadView> {
    try {
      return await this.admit(apiKeyId, filename, body);
    } catch (error) {
      await this.discard(body.storageKey).catch(() => undefined);
      throw error;
    }
  }

  private async admit(apiKeyId: string, filename: string, body: StoredUploadBody): Promise<UploadView> {
    const probed = await this.storage.withLocalFile(body.storageKey, (path) => this.probe.probe(path));
    if (isRefusal(probed)) {
      if (probed.refused === 'too_large') throw DomainError.invalid('file', probed.reason);
      throw new DomainError('unsupported_media_type', `The file looks like ${body.contentType} but was refused: ${probed.reason}`);
    }
    const upload: Upload = {
      id: body.uploadId,
      apiKeyId,
      storageKey: body.storageKey,
      filename: storableFilename(filename),
      size: body.size,
      contentType: body.contentType,
      durationSeconds: probed.durationSeconds,
      frameRate: probed.frameRate ?? null,
      createdAt: this.clock.now(),
    };
    // the row is written only while the key is enabled (holdEnabledKey): an erasure of its data that follows a disable finds it
    await this.unitOfWork.run(async (tx) => {
      await holdEnabledKey(tx.get(ApiKeyRepository), apiKeyId);
      await tx.get(UploadRepository).insert(upload);
    });
    return this.view(upload);
  }

  async findOwned(id: string, apiKeyId: string): Promise<Upload> {
    const upload = isUploadId(id) ? await this.uploads.findOwned(id, apiKeyId) : null;
    if (!upload) throw DomainError.notFound('Upload');
    if (upload.deletedAt) throw new DomainError('gone', 'This upload was deleted after its retention period');
    return upload;
  }

  /** The URL of an upload: served by this API to its owner, and accepted back as a job's video_url. */
  videoUrlOf(uploadId: string): string {
    return `${this.config.publicBaseUrl}/v1/uploads/${uploadId}`;
  }

  /** The upload id when `url` is one of this server's upload URLs. */
  uploadIdFromUrl(url: string): string | null {
    const prefix = `${this.config.publicBaseUrl}/v1/uploads/`;
    const candidate = url.startsWith(prefix) ? url.slice(prefix.length) : null;
    return candidate && isUploadId(candidate) ? candidate : null;
  }

  view(upload: Upload): UploadView {
    return {
      success: true,
      video_id: upload.id,
      video_url: this.videoUrlOf(upload.id),
      filename: upload.filename,
      size: upload.size,
      content_type: upload.contentType,
      duration_seconds: upload.durationSeconds,
    };
  }
}
