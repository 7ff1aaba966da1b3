import type { Snapshottable } from '../../../../common/in-memory.unit-of-work';
import { JobEventKind, JobEventLog } from '../../ports/job-event-log';

export interface RecordedJobEvent {
  apiKeyId: string;
  jobId: string;
  kind: JobEventKind;
  seconds?: number | null;
  credits?: number | null;
  /** when it was recorded (the database's now() for the TypeORM log) */
  at?: Date;
}

/** Job events in an array, readable by tests (`events`). */
export class InMemoryJobEventLog extends JobEventLog implements Snapshottable {
  events: RecordedJobEvent[] = [];

  snapshot(): () => void {
    const saved = [...this.events];
    return () => {
      this.events = saved;
    };
  }

  async record(event: RecordedJobEvent): Promise<void> {
    this.events.push({ ...event, at: new Date() });
  }
}
