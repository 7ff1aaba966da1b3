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
}
