import type { TransactionScope } from '../../../common/unit-of-work';
import type { WebhookEventName } from '../../../contract/webhook-events';

/** A delivery committed to the outbox, to hand to the queue once the transaction commits. */
export interface QueuedDelivery {
  id: string;
  attempts: number;
}

export interface JobAnnouncement {
  apiKeyId: string;
  jobId: string;
  /** no URL, no delivery */
  webhookUrl: string | null;
  event: WebhookEventName;
  /** the job as the API shows it */
  data: unknown;
}

/** Writes a job event's delivery into the outbox, inside the transaction of the job's change. */
export abstract class WebhookAnnouncements {
  abstract announce(tx: TransactionScope, announcement: JobAnnouncement): Promise<QueuedDelivery[]>;
}

/** Hands committed deliveries to the delivery queue (after the commit; a lost hand-off is swept later). */
export abstract class WebhookDeliveryQueue {
  abstract enqueue(deliveries: ReadonlyArray<QueuedDelivery>, delayMs?: number): Promise<void>;
}
