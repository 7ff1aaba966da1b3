import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Clock } from '../../../common/clock';
import { UsageStore } from '../ports/usage-store';

/** how long each API request is kept for the key's list of recent requests (its day's count stays for good) */
export const USAGE_REQUESTS_KEPT_DAYS = 90;
const PRUNE_INTERVAL_MS = 3600_000;

/**
 * Removes recorded requests older than USAGE_REQUESTS_KEPT_DAYS, hourly in each API process (they
 * grew by a row a request, for good). Processes pruning at once delete the same rows harmlessly.
 */
@Injectable()
export class UsagePruner implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(UsagePruner.name);
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly store: UsageStore,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.prune(), PRUNE_INTERVAL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** how many requests went (0 when the store did not answer: the next hour tries again) */
  async prune(): Promise<number> {
    const before = new Date(this.clock.now().getTime() - USAGE_REQUESTS_KEPT_DAYS * 86_400_000);
    try {
      return await this.store.pruneRequests(before);
    } catch (error) {
      this.logger.warn(`could not prune usage requests older than ${USAGE_REQUESTS_KEPT_DAYS} days: ${(error as Error).message}`);
      return 0;
    }
  }
}
