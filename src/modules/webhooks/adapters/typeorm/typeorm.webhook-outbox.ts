import { EntityManager } from 'typeorm';
import { WebhookEventName } from '../../../../contract/webhook-events';
import { WebhookDelivery, WebhookOutbox } from '../../ports/webhook-outbox';
import { deleteInBatches } from '../../../../infrastructure/database/delete-in-batches';

/** deliveries deleted by one statement of pruneFinished */
const PRUNE_BATCH = 5_000;

interface DeliveryRow {
  id: string;
  api_key_id: string;
  job_id: string;
  event: string;
  url: string;
  body: string;
  status: 'pending' | 'sent' | 'failed';
  attempts: number;
  next_attempt_at: Date;
}

const toDelivery = (row: DeliveryRow): WebhookDelivery => ({
  id: row.id,
  apiKeyId: row.api_key_id,
  jobId: row.job_id,
  event: row.event as WebhookEventName,
  url: row.url,
  body: row.body,
  status: row.status,
  attempts: row.attempts,
  nextAttemptAt: row.next_attempt_at,
});

export class TypeOrmWebhookOutbox extends WebhookOutbox {
  constructor(private readonly manager: EntityManager) {
    super();
  }

  async add(delivery: Omit<WebhookDelivery, 'status' | 'attempts' | 'nextAttemptAt'>): Promise<void> {
    await this.manager.query(
      `INSERT INTO webhook_deliveries (id, api_key_id, job_id, event, url, body, status) VALUES ($1, $2, $3, $4, $5, $6, 'pending') ON CONFLICT (job_id, event) DO NOTHING`,
      [delivery.id, delivery.apiKeyId, delivery.jobId, delivery.event, delivery.url, delivery.body],
    );
  }

  async find(id: string): Promise<WebhookDelivery | null> {
    const rows: DeliveryRow[] = await this.manager.query(`SELECT * FROM webhook_deliveries WHERE id = $1`, [id]);
    return rows.length ? toDelivery(rows[0]) : null;
  }

  async due(now: Date, limit: number): Promise<WebhookDelivery[]> {
    const rows: DeliveryRow[] = await this.manager.query(
      `SELECT * FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= $1 ORDER BY next_attempt_at LIMIT $2`,
      [now, limit],
    );
    return rows.map(toDelivery);
  }

  async goneFor(jobId: string, url: string): Promise<boolean> {
    const rows: unknown[] = await this.manager.query(`SELECT 1 FROM webhook_deliveries WHERE job_id = $1 AND url = $2 AND last_status_code = 410 LIMIT 1`, [jobId, url]);
    return rows.length > 0;
  }

  /** a batch at a time, oldest first on the index of finished deliveries, so that a first prune of a large table holds no long lock */
  pruneFinished(before: Date): Promise<number> {
    const oldestFinished = `SELECT id FROM webhook_deliveries WHERE status <> 'pending' AND finished_at < $1 ORDER BY finished_at LIMIT $2`;
    return deleteInBatches((sql, parameters) => this.manager.query(sql, parameters), 'webhook_deliveries', oldestFinished, [before], PRUNE_BATCH);
  }

  async forgetKey(apiKeyId: string): Promise<number> {
    const [, removed] = (await this.manager.query(`DELETE FROM webhook_deliveries WHERE api_key_id = $1`, [apiKeyId])) as [unknown, number];
    return removed;
  }

  /**
   * One statement: the delivery's attempt and, once it is sent or failed, the job's webhook_events.
   * In two, a process that died (or a connection dropped) between them left the event off the job
   * for good: the delivery was no longer pending, so no retry wrote it.
   */
  async recordAttempt(id: string, result: { statusCode: number | null; error: string | null; outcome: 'sent' | 'failed' | 'retry'; nextAttemptAt: Date | null }): Promise<void> {
    const status = result.outcome === 'retry' ? 'pending' : result.outcome;
    await this.manager.query(
      `WITH attempted AS (
         UPDATE webhook_deliveries
            SET attempts = attempts + 1, last_status_code = $2, last_error = $3, status = $4,
                next_attempt_at = COALESCE($5, next_attempt_at), finished_at = CASE WHEN $4 = 'pending' THEN NULL ELSE now() END
          WHERE id = $1 AND status = 'pending'
          RETURNING job_id, event, status
       )
       UPDATE jobs SET webhook_events = jobs.webhook_events || jsonb_build_object(attempted.event, attempted.status)
         FROM attempted
        WHERE jobs.id = attempted.job_id AND attempted.status <> 'pending'`,
      [id, result.statusCode, result.error, status, result.nextAttemptAt],
    );
  }
}
