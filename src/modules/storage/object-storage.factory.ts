import type { AppConfig } from '../../config/app-config';
import { LocalDiskObjectStorage } from './adapters/local/local-disk.object-storage';
import { S3ObjectStorage } from './adapters/s3/s3.object-storage';
import { UrlSigner } from './application/url-signer';
import { ObjectStorage } from './ports/object-storage';

/** The adapter STORAGE names, built from the validated configuration. */
export function createObjectStorage(config: AppConfig, signer: UrlSigner): ObjectStorage {
  const storage = config.storage;
  return storage.kind === 's3' ? new S3ObjectStorage(storage) : new LocalDiskObjectStorage(storage.root, config.publicBaseUrl, signer);
}
