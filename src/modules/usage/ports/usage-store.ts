import type { UsageEvent } from '../../../contract/api-types';
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

/** A recorded call as the API lists it (the contract's UsageEvent). */
export type UsageEventView = UsageEvent;

export abstract class UsageStore {
  /** The requests, and each key's count of the day, in one step. */
  abstract insertRequests(records: readonly RequestRecord[]): Promise<void>;
  /** Counters per UTC day (YYYY-MM-DD) since `from` (the requests: since the start of its day). */
  abstract dailyCounters(apiKeyId: string, from: Date): Promise<Array<Partial<UsageCounters> & { date: string }>>;
  abstract recentRequests(apiKeyId: string, limit: number): Promise<UsageEventView[]>;
  /** Removes the requests recorded before `before` (their days' counts stay); answers how many went. */
  abstract pruneRequests(before: Date): Promise<number>;
}
