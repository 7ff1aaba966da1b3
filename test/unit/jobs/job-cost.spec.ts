import { billableSeconds, creditCost } from '../../../src/modules/jobs/domain/job-cost';
import { summarise, windowDays } from '../../../src/modules/usage/domain/usage-summary';

describe('credit cost', () => {
  it.each([
    [4, 60, 4],
    [4, 45, 3],
    [4.04, 45, 4],
    [60, 180, 180],
    [0.5, 45, 1],
    [0, 60, 0],
    [4.000000001, 60, 4],
  ])('%s s at %s credits/min costs %s', (seconds, perMinute, cost) => {
    expect(creditCost(seconds, perMinute)).toBe(cost);
  });

  it('bills a preview for its own length when shorter than the video', () => {
    expect(billableSeconds(10, 2)).toBe(2);
    expect(billableSeconds(1.5, 2)).toBe(1.5);
    expect(billableSeconds(10, null)).toBe(10);
  });
});

describe('usage summary', () => {
  it('lists every UTC day of the window, oldest first, ending today', () => {
    expect(windowDays(new Date('2026-03-01T00:30:00Z'), 3)).toEqual(['2026-02-27', '2026-02-28', '2026-03-01']);
    expect(windowDays(new Date('2026-03-01T23:59:59Z'), 1)).toEqual(['2026-03-01']);
  });

  it('fills missing days with zeros, merges partial rows and totals the days', () => {
    const { totals, daily } = summarise(['2026-01-01', '2026-01-02', '2026-01-03'], [
      { date: '2026-01-01', total_jobs: 2, completed_jobs: 1, video_seconds: 4 },
      { date: '2026-01-01', credits_used: 3 },
      { date: '2026-01-03', requests: 5 },
      { date: '2025-12-31', requests: 100 },
    ]);
    expect(daily).toEqual([
      { date: '2026-01-01', total_jobs: 2, completed_jobs: 1, failed_jobs: 0, credits_used: 3, video_seconds: 4, requests: 0 },
      { date: '2026-01-02', total_jobs: 0, completed_jobs: 0, failed_jobs: 0, credits_used: 0, video_seconds: 0, requests: 0 },
      { date: '2026-01-03', total_jobs: 0, completed_jobs: 0, failed_jobs: 0, credits_used: 0, video_seconds: 0, requests: 5 },
    ]);
    expect(totals).toEqual({ total_jobs: 2, completed_jobs: 1, failed_jobs: 0, credits_used: 3, video_seconds: 4, requests: 5 });
  });
});
