import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../../config/app-config';
import { RequestRecord, UsageStore } from '../ports/usage-store';

const MAX_BUFFERED = 500;
/** records a store that was down refused, kept for the next flush: at most this many, the newest */
const MAX_UNWRITTEN = 10_000;

/**
 * Records /v1 requests off the request path: records are buffered and written in one multi-row
 * insert per interval (or when the buffer fills), and flushed at shutdown.
 */
@Injectable()
export class UsageRecorder implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(UsageRecorder.name);
  private buffer: RequestRecord[] = [];
  /** what the store refused (down for a moment): written ahead of the next batch; it was lost */
  private unwritten: RequestRecord[] = [];
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: UsageStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), this.config.env.USAGE_FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  record(record: RequestRecord): void {
    this.buffer.push(record);
    if (this.buffer.length >= MAX_BUFFERED) void this.flush();
  }

  /**
   * Writes everything buffered so far, and what a store that was down refused before (serialised,
   * so records are never written twice; one insert, written whole or not at all).
   */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const batch = [...this.unwritten, ...this.buffer];
      this.buffer = [];
      this.unwritten = [];
      if (!batch.length) return;
      try {
        await this.store.insertRequests(batch);
      } catch (error) {
        this.unwritten = batch.slice(-MAX_UNWRITTEN);
        const dropped = batch.length - this.unwritten.length;
        this.logger.warn(`could not record ${batch.length} usage events, kept for the next flush${dropped ? ` (the oldest ${dropped} dropped)` : ''}: ${(error as Error).message}`);
      }
    });
    return this.flushing;
  }
}
