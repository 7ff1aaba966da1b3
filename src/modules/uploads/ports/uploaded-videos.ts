import type { Upload } from '../domain/upload';

export type { Upload } from '../domain/upload';

/** What other modules may ask of the uploads: which upload a video_url names, and that upload if the key owns it. */
export abstract class UploadedVideos {
  /** The upload id of one of this service's upload URLs; null for any other URL. */
  abstract uploadIdFromUrl(url: string): string | null;
  /** The key's upload; `not_found` (DomainError) when it is missing or another key's. */
  abstract findOwned(id: string, apiKeyId: string): Promise<Upload>;
}
