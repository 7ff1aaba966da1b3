import { Injectable } from '@nestjs/common';
import { Clock } from '../../../common/clock';
import { Ids } from '../../../common/ids';
import { TransactionScope } from '../../../common/unit-of-work';
import { JobAnnouncement, QueuedDelivery, WebhookAnnouncements } from '../ports/webhook-announcements';
import { WebhookOutbox } from '../ports/webhook-outbox';

/** Writes the delivery of a job event into the outbox, inside the transaction of the job's change. */
@Injectable()
export class WebhookAnnouncer extends WebhookAnnouncements {
  constructor(
    private readonly clock: Clock,
    private readonly ids: Ids,
  ) {
    super();
  }

  async announce(tx: TransactionScope, announcement: JobAnnouncement): Promise<QueuedDelivery[]> {
    const { apiKeyId, jobId, webhookUrl, event, data } = announcement;
    if (!webhookUrl) return [];
    const id = this.ids.webhookMessage();
    const body = JSON.stringify({ event, created_at: this.clock.now().toISOString(), data });
    await tx.get(WebhookOutbox).add({ id, apiKeyId, jobId, event, url: webhookUrl, body });
    return [{ id, attempts: 0 }];
  }
}
