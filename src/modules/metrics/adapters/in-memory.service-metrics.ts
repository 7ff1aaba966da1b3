import { ServiceMetrics } from '../ports/service-metrics';

/** What was reported, kept for tests to read. */
export class InMemoryServiceMetrics extends ServiceMetrics {
  readonly jobs: Array<{ model: string; status: 'completed' | 'failed'; seconds: number; frames?: number }> = [];
  readonly webhookAttempts: Array<{ event: string; result: 'sent' | 'retry' | 'failed' }> = [];

  observeJob(model: string, status: 'completed' | 'failed', seconds: number, frames?: number): void {
    this.jobs.push({ model, status, seconds, frames });
  }

  countWebhookAttempt(event: string, result: 'sent' | 'retry' | 'failed'): void {
    this.webhookAttempts.push({ event, result });
  }
}
