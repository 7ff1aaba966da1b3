import { UsageCounters } from '../../domain/usage-summary';
import { RequestRecord, UsageEventView, UsageStore } from '../../ports/usage-store';

/**
 * API requests in memory: counted per UTC day and listed newest first. The job counters (jobs,
 * credits, seconds) come from the job events in Postgres; here they are whatever `recordJobDay` adds.
 */
export class InMemoryUsageStore extends UsageStore {
  readonly requests: Array<RequestRecord & { id: number }> = [];
  private readonly jobDays: Array<Partial<UsageCounters> & { apiKeyId: string; date: string }> = [];
  /** when set, inserts fail (a database that is down) */
  failing = false;

  recordJobDay(apiKeyId: string, date: string, counters: Partial<UsageCounters>): void {
    this.jobDays.push({ apiKeyId, date, ...counters });
  }

  async insertRequests(records: readonly RequestRecord[]): Promise<void> {
    if (this.failing) throw new Error('the database is down');
    for (const record of records) this.requests.push({ ...record, id: this.requests.length + 1 });
  }

  async dailyCounters(apiKeyId: string, from: Date): Promise<Array<Partial<UsageCounters> & { date: string }>> {
    const days = new Map<string, Partial<UsageCounters> & { date: string }>();
    for (const request of this.requests.filter((r) => r.apiKeyId === apiKeyId && r.at >= from)) {
      const date = request.at.toISOString().slice(0, 10);
      const day = days.get(date) ?? { date, requests: 0 };
      day.requests = (day.requests ?? 0) + 1;
      days.set(date, day);
    }
    const jobDays = this.jobDays.filter((day) => day.apiKeyId === apiKeyId).map(({ apiKeyId: _owner, ...day }) => day);
    return [...days.values(), ...jobDays];
  }

  async recentRequests(apiKeyId: string, limit: number): Promise<UsageEventView[]> {
    return this.requests
      .filter((request) => request.apiKeyId === apiKeyId)
      .sort((a, b) => b.at.getTime() - a.at.getTime() || b.id - a.id)
      .slice(0, limit)
      .map((r) => ({ id: r.id, created_at: r.at.toISOString(), method: r.method, path: r.path, status_code: r.statusCode, job_id: r.jobId, credits: r.credits, duration_ms: r.durationMs }));
  }
}
