/** a job's end as monitoring sees it: `seconds` from its start, its wait in the queue included */
export interface EndedJob {
  model: string;
  status: 'completed' | 'failed';
  /** why it failed (`canceled` among them: a client's cancel is no fault) */
  errorCode?: string;
  seconds: number;
  frames?: number;
  /** a completed job's time on its worker alone, where one worker did it whole */
  processingSeconds?: number;
}

/**
 * What use cases report to monitoring: how jobs end and how webhook attempts go. The Prometheus
 * adapter is MetricsService; tests read the in-memory one.
 */
export abstract class ServiceMetrics {
  abstract observeJob(ended: EndedJob): void;
  /** One webhook attempt's result; `failed` means the whole retry schedule is spent. */
  abstract countWebhookAttempt(event: string, result: 'sent' | 'retry' | 'failed'): void;
}
