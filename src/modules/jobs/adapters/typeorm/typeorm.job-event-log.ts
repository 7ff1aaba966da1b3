import { EntityManager } from 'typeorm';
import { JobEventKind, JobEventLog } from '../../ports/job-event-log';

export class TypeOrmJobEventLog extends JobEventLog {
  constructor(private readonly manager: EntityManager) {
    super();
  }

  async record(event: { apiKeyId: string; jobId: string; kind: JobEventKind; seconds?: number | null; credits?: number | null }): Promise<void> {
    await this.manager.query(`INSERT INTO job_events (api_key_id, job_id, kind, seconds, credits) VALUES ($1, $2, $3, $4, $5)`, [
      event.apiKeyId,
      event.jobId,
      event.kind,
      event.seconds ?? null,
      event.credits ?? null,
    ]);
  }
}
