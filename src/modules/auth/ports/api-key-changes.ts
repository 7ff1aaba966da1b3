/**
 * Port: news of API keys that changed (disabled, re-enabled, deleted, their secret replaced), from
 * whichever process changed them. The API-key cache keeps an entry only while the feed is live.
 */
export abstract class ApiKeyChanges {
  /** `listener` gets the hash of each key that changed, or null when changes may have been missed (forget everything). */
  abstract subscribe(listener: (keyHash: string | null) => void): () => void;
  /** true while changes are being received; a cache must not answer from memory otherwise */
  abstract isLive(): boolean;
  abstract close(): Promise<void>;
}
