import type { Snapshottable } from '../../../../common/in-memory.unit-of-work';
import { JobEventKind, JobEventLog } from '../../ports/job-event-log';

export interface RecordedJobEvent {
  apiKeyId: string;
  jobId: string;
  kind: JobEventKind;
  seconds?: number | null;
  credits?: number | null;
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
    this.events.push({ ...event });
  }
}
