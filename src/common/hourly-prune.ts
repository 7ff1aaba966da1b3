import { Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Clock } from './clock';

const PRUNE_INTERVAL_MS = 3600_000;

/**
 * Removes, hourly in each process, the rows of a table that grew for good, once older than
 * `keptDays`. Processes pruning at once delete the same rows harmlessly; a store that does not
 * answer is tried again the next hour.
 */
export abstract class HourlyPrune implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(this.constructor.name);
  private timer?: NodeJS.Timeout;

  protected constructor(
    private readonly clock: Clock,
    /** how long a row is kept */
    readonly keptDays: number,
    /** what the rows are, for the log */
    private readonly what: string,
  ) {}

  /** removes the rows older than `before`; answers how many went */
  protected abstract removeOlderThan(before: Date): Promise<number>;

  onModuleInit(): void {
    this.timer = setInterval(() => void this.prune(), PRUNE_INTERVAL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** how many rows went (0 when the store did not answer) */
  async prune(): Promise<number> {
    const before = new Date(this.clock.now().getTime() - this.keptDays * 86_400_000);
    try {
      return await this.removeOlderThan(before);
    } catch (error) {
      this.logger.warn(`could not prune ${this.what} older than ${this.keptDays} days: ${(error as Error).message}`);
      return 0;
    }
  }
}
