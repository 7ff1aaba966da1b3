import { Upload } from '../domain/upload';

export abstract class UploadRepository {
  abstract insert(upload: Upload): Promise<void>;
  abstract findOwned(id: string, apiKeyId: string): Promise<Upload | null>;
}
