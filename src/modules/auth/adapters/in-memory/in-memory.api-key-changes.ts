import { ApiKeyChanges } from '../../ports/api-key-changes';

/** Changes announced in this process (the in-memory repository announces its own); `live` can be switched off to play a lost feed. */
export class InMemoryApiKeyChanges extends ApiKeyChanges {
  private readonly listeners = new Set<(keyHash: string | null) => void>();
  live = true;

  subscribe(listener: (keyHash: string | null) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  isLive(): boolean {
    return this.live;
  }

  announce(keyHash: string | null): void {
    for (const listener of this.listeners) listener(keyHash);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
