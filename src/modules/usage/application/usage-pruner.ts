import { Injectable } from '@nestjs/common';
import { Clock } from '../../../common/clock';
import { HourlyPrune } from '../../../common/hourly-prune';
import { UsageStore } from '../ports/usage-store';

/** how long each API request is kept for the key's list of recent requests (its day's count stays for good) */
export const USAGE_REQUESTS_KEPT_DAYS = 90;

/** Removes recorded requests older than USAGE_REQUESTS_KEPT_DAYS (they grew by a row a request, for good). */
@Injectable()
export class UsagePruner extends HourlyPrune {
  constructor(
    private readonly store: UsageStore,
    clock: Clock,
  ) {
    super(clock, USAGE_REQUESTS_KEPT_DAYS, 'usage requests');
  }

  protected removeOlderThan(before: Date): Promise<number> {
    return this.store.pruneRequests(before);
  }
}
