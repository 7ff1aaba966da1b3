import { EndedJob, ServiceMetrics } from '../ports/service-metrics';

/** What was reported, kept for tests to read. */
export class InMemoryServiceMetrics extends ServiceMetrics {
  readonly jobs: EndedJob[] = [];
  readonly webhookAttempts: Array<{ event: string; result: 'sent' | 'retry' | 'failed' }> = [];

  observeJob(ended: EndedJob): void {
    this.jobs.push(ended);
  }

  countWebhookAttempt(event: string, result: 'sent' | 'retry' | 'failed'): void {
    this.webhookAttempts.push({ event, result });
  }
}
