import { Injectable } from '@nestjs/common';
import { Clock } from '../../../common/clock';
import { randomBase62 } from '../../../common/ids';
import { TransactionScope } from '../../../common/unit-of-work';
import { Job, WebhookEventName } from '../../jobs/domain/job';
import { JobView } from '../../jobs/application/job.presenter';

/** Writes the delivery of a job event into the outbox, inside the transaction of the job's change. */
@Injectable()
export class WebhookAnnouncer {
  constructor(private readonly clock: Clock) {}

  async announce(tx: TransactionScope, job: Job, event: WebhookEventName, view: JobView): Promise<Array<{ id: string; attempts: number }>> {
    if (!job.webhookUrl) return [];
    const id = `msg_${randomBase62(24)}`;
    const body = JSON.stringify({ event, created_at: this.clock.now().toISOString(), data: view });
    await tx.webhooks.add({ id, apiKeyId: job.apiKeyId, jobId: job.id, event, url: job.webhookUrl, body });
    return [{ id, attempts: 0 }];
  }
}
