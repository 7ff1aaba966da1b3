export interface Upload {
  id: string;
  apiKeyId: string;
  storageKey: string;
  filename: string;
  size: number;
  contentType: string;
  durationSeconds: number | null;
  createdAt: Date;
  /** set when retention deleted the file */
  deletedAt?: Date | null;
}

export const uploadStorageKey = (uploadId: string): string => `uploads/${uploadId}`;
