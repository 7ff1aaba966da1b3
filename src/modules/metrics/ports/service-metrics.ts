/**
 * What use cases report to monitoring: how jobs end and how webhook attempts go. The Prometheus
 * adapter is MetricsService; tests read the in-memory one.
 */
export abstract class ServiceMetrics {
  abstract observeJob(model: string, status: 'completed' | 'failed', seconds: number, frames?: number): void;
  /** One webhook attempt's result; `failed` means the whole retry schedule is spent. */
  abstract countWebhookAttempt(event: string, result: 'sent' | 'retry' | 'failed'): void;
}
