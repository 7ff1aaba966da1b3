import { UsageCounters } from '../domain/usage-summary';

export interface RequestRecord {
  apiKeyId: string;
  method: string;
  path: string;
  statusCode: number;
  durationMs: number;
  jobId: string | null;
  credits: number;
  at: Date;
}

export interface UsageEventView {
  id: number;
  created_at: string;
  method: string;
  path: string;
  status_code: number;
  job_id: string | null;
  credits: number;
  duration_ms: number;
}

export abstract class UsageStore {
  abstract insertRequests(records: readonly RequestRecord[]): Promise<void>;
  /** Counters per UTC day (YYYY-MM-DD) since `from`. */
  abstract dailyCounters(apiKeyId: string, from: Date): Promise<Array<Partial<UsageCounters> & { date: string }>>;
  abstract recentRequests(apiKeyId: string, limit: number): Promise<UsageEventView[]>;
}
