import { Clock } from '../../../common/clock';

/** How long a replaced webhook secret still signs deliveries (WEBHOOK_SECRET_OVERLAP_SECONDS), on the app's clock. */
export class WebhookSecretOverlap {
  constructor(
    private readonly clock: Clock,
    private readonly overlapMs: number,
  ) {}

  /** until when a secret replaced now stays valid */
  previousValidUntil(): Date {
    return new Date(this.clock.now().getTime() + this.overlapMs);
  }

  now(): Date {
    return this.clock.now();
  }
}
