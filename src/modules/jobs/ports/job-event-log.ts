export type JobEventKind = 'created' | 'started' | 'completed' | 'failed';

/** Job events for usage reporting, written in the transaction of the change they record. */
export abstract class JobEventLog {
  abstract record(event: { apiKeyId: string; jobId: string; kind: JobEventKind; seconds?: number | null; credits?: number | null }): Promise<void>;
}
