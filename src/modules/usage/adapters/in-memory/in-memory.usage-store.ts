import { UsageCounters } from '../../domain/usage-summary';
import { RequestRecord, UsageEventView, UsageStore } from '../../ports/usage-store';

type Day = Partial<UsageCounters> & { date: string };

/** What the in-memory job event log holds (the jobs module's InMemoryJobEventLog fits). */
export interface JobEventSource {
  readonly events: ReadonlyArray<{ apiKeyId: string; kind: string; seconds?: number | null; at?: Date }>;
}

/** What the in-memory ledger tells of charges (the billing module's InMemoryCreditLedger fits). */
export interface ChargeSource {
  charges(apiKeyId: string): Array<{ amount: number; at: Date }>;
}

const dayOf = (at: Date): string => at.toISOString().slice(0, 10);

/**
 * API requests in memory, counted per UTC day and listed newest first; the job counters and credits
 * used come from the in-memory job event log and ledger it is given (the composition passes them),
 * as the TypeORM store reads job_events and credit_ledger.
 */
export class InMemoryUsageStore extends UsageStore {
  requests: Array<RequestRecord & { id: number }> = [];
  /** requests per key and UTC day, kept when the requests are pruned */
  private readonly counted = new Map<string, Map<string, number>>();
  private nextId = 1;
  /** when set, inserts fail (a database that is down) */
  failing = false;

  constructor(
    private readonly events: JobEventSource = { events: [] },
    private readonly ledger: ChargeSource = { charges: () => [] },
  ) {
    super();
  }

  async insertRequests(records: readonly RequestRecord[]): Promise<void> {
    if (this.failing) throw new Error('the database is down');
    for (const record of records) {
      this.requests.push({ ...record, id: this.nextId++ });
      const days = this.counted.get(record.apiKeyId) ?? new Map<string, number>();
      days.set(dayOf(record.at), (days.get(dayOf(record.at)) ?? 0) + 1);
      this.counted.set(record.apiKeyId, days);
    }
  }

  async pruneRequests(before: Date): Promise<number> {
    const kept = this.requests.filter((request) => request.at >= before);
    const pruned = this.requests.length - kept.length;
    this.requests = kept;
    return pruned;
  }

  async dailyCounters(apiKeyId: string, from: Date): Promise<Day[]> {
    const days = new Map<string, Day>();
    const add = (at: Date, counter: keyof UsageCounters, amount: number): void => {
      if (at < from) return;
      const day = days.get(dayOf(at)) ?? { date: dayOf(at) };
      day[counter] = (day[counter] ?? 0) + amount;
      days.set(day.date, day);
    };
    for (const [date, requests] of this.counted.get(apiKeyId) ?? []) if (date >= dayOf(from)) days.set(date, { ...days.get(date), date, requests });
    for (const event of this.events.events.filter((e) => e.apiKeyId === apiKeyId && e.at)) {
      const at = event.at as Date;
      if (event.kind === 'created') add(at, 'total_jobs', 1);
      if (event.kind === 'completed') {
        add(at, 'completed_jobs', 1);
        add(at, 'video_seconds', event.seconds ?? 0);
      }
      if (event.kind === 'failed') add(at, 'failed_jobs', 1);
    }
    for (const charge of this.ledger.charges(apiKeyId)) add(charge.at, 'credits_used', charge.amount);
    return [...days.values()];
  }

  async recentRequests(apiKeyId: string, limit: number): Promise<UsageEventView[]> {
    return this.requests
      .filter((request) => request.apiKeyId === apiKeyId)
      .sort((a, b) => b.at.getTime() - a.at.getTime() || b.id - a.id)
      .slice(0, limit)
      .map((r) => ({ id: r.id, created_at: r.at.toISOString(), method: r.method, path: r.path, status_code: r.statusCode, job_id: r.jobId, credits: r.credits, duration_ms: Math.round(r.durationMs * 100) / 100 }));
  }
}
