/** The events a job's webhook_url receives (API contract). */
export const WEBHOOK_EVENTS = ['job.started', 'job.completed', 'job.failed'] as const;
export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number];
