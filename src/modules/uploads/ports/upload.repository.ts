import { Upload } from '../domain/upload';

export abstract class UploadRepository {
  abstract insert(upload: Upload): Promise<void>;
  abstract findOwned(id: string, apiKeyId: string): Promise<Upload | null>;
  /**
   * In a job's start transaction: holds the upload's row until the transaction ends, so retention
   * cannot claim it meanwhile (it locks the row before it looks for jobs reading it), and says
   * whether it is still there. Without the hold, retention's check missed the start not yet
   * committed and deleted the file under a job that was then accepted.
   */
  abstract holdForStart(id: string): Promise<'kept' | 'deleted'>;
  /**
   * Erases a key's uploads (an erasure of its data): each is marked deleted and loses its file name.
   * Answers how many the key has and every upload's storage key, those already marked deleted too,
   * so that an erasure run again after a storage failure deletes what is left.
   */
  abstract eraseClientContent(apiKeyId: string, now: Date): Promise<{ uploads: number; storageKeys: string[] }>;
}
