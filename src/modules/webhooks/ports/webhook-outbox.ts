import { WebhookEventName } from '../../../contract/webhook-events';

export interface WebhookDelivery {
  id: string;
  apiKeyId: string;
  jobId: string;
  event: WebhookEventName;
  url: string;
  body: string;
  status: 'pending' | 'sent' | 'failed';
  attempts: number;
  nextAttemptAt: Date;
}

/** Deliveries written in the same transaction as the job change that caused them. */
export abstract class WebhookOutbox {
  /** One delivery per job and event: adding it twice keeps the first. */
  abstract add(delivery: Omit<WebhookDelivery, 'status' | 'attempts' | 'nextAttemptAt'>): Promise<void>;
  abstract find(id: string): Promise<WebhookDelivery | null>;
  abstract due(now: Date, limit: number): Promise<WebhookDelivery[]>;
  /** Records an attempt; `outcome` sent/failed also sets the job's webhook_events entry. */
  abstract recordAttempt(id: string, result: { statusCode: number | null; error: string | null; outcome: 'sent' | 'failed' | 'retry'; nextAttemptAt: Date | null }): Promise<void>;
  /** whether `url` answered an attempt of another of this job's deliveries with 410 Gone (the receiver asked to be left alone) */
  abstract goneFor(jobId: string, url: string): Promise<boolean>;
  /** Removes the deliveries sent or failed before `before` (pending ones stay); answers how many went. */
  abstract pruneFinished(before: Date): Promise<number>;
  /** Removes every delivery of a key's jobs, pending ones too (an erasure of its data); answers how many went. */
  abstract forgetKey(apiKeyId: string): Promise<number>;
}
