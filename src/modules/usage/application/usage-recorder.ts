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
  /** a flush is queued that has not taken the buffer yet: a full buffer queues no other */
  private flushQueued = false;
  /** records dropped while the store fell behind, told by the next flush */
  private dropped = 0;

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

  /**
   * While a write hangs (a database that neither answers nor fails) the buffer keeps the newest
   * MAX_UNWRITTEN and queues one flush: every record past 500 queued a flush of its own, and the
   * buffer grew without bound.
   */
  record(record: RequestRecord): void {
    this.buffer.push(record);
    if (this.buffer.length > MAX_UNWRITTEN) {
      this.dropped += this.buffer.length - MAX_UNWRITTEN;
      this.buffer.splice(0, this.buffer.length - MAX_UNWRITTEN);
    }
    if (this.buffer.length >= MAX_BUFFERED && !this.flushQueued) void this.flush();
  }

  /**
   * Writes everything buffered so far, and what a store that was down refused before (serialised,
   * so records are never written twice; one insert, written whole or not at all).
   */
  flush(): Promise<void> {
    this.flushQueued = true;
    this.flushing = this.flushing.then(async () => {
      this.flushQueued = false;
      const batch = [...this.unwritten, ...this.buffer];
      this.buffer = [];
      this.unwritten = [];
      if (this.dropped) this.logger.warn(`${this.dropped} usage events dropped: the store fell behind`);
      this.dropped = 0;
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
