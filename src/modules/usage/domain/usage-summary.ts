import type { DailyUsage, UsageCounters } from '../../../contract/api-types';

export type { DailyUsage, UsageCounters } from '../../../contract/api-types';

export const ZERO_COUNTERS: UsageCounters = { total_jobs: 0, completed_jobs: 0, failed_jobs: 0, credits_used: 0, video_seconds: 0, requests: 0 };

/** The UTC days of a `days`-long window ending today, oldest first, as YYYY-MM-DD. */
export function windowDays(now: Date, days: number): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, i) => new Date(today - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}

/** Every day of the window present, zeros included, and the totals as the sum of the days. */
export function summarise(days: string[], partial: ReadonlyArray<Partial<UsageCounters> & { date: string }>): { totals: UsageCounters; daily: DailyUsage[] } {
  const byDay = new Map(days.map((date) => [date, { date, ...ZERO_COUNTERS }]));
  for (const row of partial) {
    const day = byDay.get(row.date);
    if (!day) continue;
    for (const key of Object.keys(ZERO_COUNTERS) as Array<keyof UsageCounters>) day[key] += Number(row[key] ?? 0);
  }
  const daily = [...byDay.values()].map((day) => ({ ...day, video_seconds: Math.round(day.video_seconds * 1000) / 1000 }));
  const totals = { ...ZERO_COUNTERS };
  for (const day of daily) for (const key of Object.keys(ZERO_COUNTERS) as Array<keyof UsageCounters>) totals[key] += day[key];
  totals.video_seconds = Math.round(totals.video_seconds * 1000) / 1000;
  return { totals, daily };
}
