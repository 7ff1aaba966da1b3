import { Injectable } from '@nestjs/common';
import { Clock } from '../../../common/clock';
import { HourlyPrune } from '../../../common/hourly-prune';
import { WebhookOutbox } from '../ports/webhook-outbox';

/** how long a delivery is kept once sent or failed (the job keeps each event's outcome in webhook_events) */
export const WEBHOOK_DELIVERIES_KEPT_DAYS = 30;

/** Removes the deliveries sent or failed over WEBHOOK_DELIVERIES_KEPT_DAYS ago: each kept its body for good (2.6 GB at 1.9 million, measured in review). */
@Injectable()
export class WebhookDeliveryPruner extends HourlyPrune {
  constructor(
    private readonly outbox: WebhookOutbox,
    clock: Clock,
  ) {
    super(clock, WEBHOOK_DELIVERIES_KEPT_DAYS, 'webhook deliveries finished');
  }

  protected removeOlderThan(before: Date): Promise<number> {
    return this.outbox.pruneFinished(before);
  }
}
