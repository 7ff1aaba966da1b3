import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { ApiKeyChanges } from '../../ports/api-key-changes';
import { RepeatedWarning } from '../../../../common/logging/repeated-warning';

/** The channel the api_keys triggers notify on (migration ApiKeyChangeNotifications), with the key's hash as payload. */
export const API_KEY_CHANGES_CHANNEL = 'backdrop_api_key_changes';

const RECONNECT_DELAYS_MS = [100, 500, 1000, 2000, 5000];

/**
 * Changes to API keys from Postgres LISTEN on one dedicated connection. Triggers on api_keys send
 * them, so a key changed by any process (another API replica, the admin CLI, plain SQL) is announced
 * to every process within milliseconds. When the connection drops the feed is not live (caches stop
 * answering from memory) until it listens again; then everything is forgotten once, since news may
 * have been missed in between.
 */
export class PgNotifyApiKeyChanges extends ApiKeyChanges {
  private readonly logger = new Logger('ApiKeyChanges');
  private readonly losses = new RepeatedWarning(this.logger);
  private readonly listeners = new Set<(keyHash: string | null) => void>();
  private client: Client | null = null;
  private live = false;
  private closed = false;
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | null = null;

  constructor(private readonly databaseUrl: string) {
    super();
  }

  /** Resolves once listening (or after the first failed attempt: the feed keeps trying in the background). */
  async start(): Promise<void> {
    await this.connect();
  }

  subscribe(listener: (keyHash: string | null) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  isLive(): boolean {
    return this.live;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.live = false;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new Client({ connectionString: this.databaseUrl, keepAlive: true });
    // An error on an idle LISTEN connection (server restart, DROP DATABASE ... WITH (FORCE)) must never reach the process as unhandled.
    client.on('error', (error) => this.lost(client, error.message));
    client.on('end', () => this.lost(client, 'connection ended'));
    client.on('notification', (message) => {
      if (message.channel === API_KEY_CHANGES_CHANNEL) this.announce(message.payload || null);
    });
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${API_KEY_CHANGES_CHANNEL}`);
    } catch (error) {
      this.lost(client, (error as Error).message);
      return;
    }
    if (this.closed || this.client !== client) return void client.end().catch(() => undefined);
    this.attempt = 0;
    this.announce(null);
    this.live = true;
    this.losses.recovered('API key change feed listening again');
  }

  private lost(client: Client, reason: string): void {
    if (this.client !== client) return;
    this.client = null;
    this.live = false;
    this.announce(null);
    client.end().catch(() => undefined);
    if (this.closed) return;
    const delay = RECONNECT_DELAYS_MS[Math.min(this.attempt, RECONNECT_DELAYS_MS.length - 1)];
    this.attempt += 1;
    this.losses.warn(`API key change feed lost (${reason}); keys are read from the database until it listens again (retry in ${delay} ms)`);
    this.retryTimer = setTimeout(() => void this.connect(), delay);
    this.retryTimer.unref();
  }

  private announce(keyHash: string | null): void {
    for (const listener of this.listeners) listener(keyHash);
  }
}
