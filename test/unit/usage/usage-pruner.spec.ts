import { FixedClock } from '../../../src/common/clock';
import { InMemoryUsageStore } from '../../../src/modules/usage/adapters/in-memory/in-memory.usage-store';
import { USAGE_REQUESTS_KEPT_DAYS, UsagePruner } from '../../../src/modules/usage/application/usage-pruner';
import { RequestRecord } from '../../../src/modules/usage/ports/usage-store';

const request = (at: Date): RequestRecord => ({ apiKeyId: 'key_a', method: 'GET', path: '/v1/jobs', statusCode: 200, durationMs: 3, jobId: null, credits: 0, at });

describe('UsagePruner', () => {
  it(`removes the requests recorded more than ${USAGE_REQUESTS_KEPT_DAYS} days ago, keeping those since`, async () => {
    const clock = FixedClock.at('2026-06-01T00:00:00Z');
    const store = new InMemoryUsageStore();
    const daysAgo = (days: number) => new Date(clock.now().getTime() - days * 86_400_000);
    await store.insertRequests([request(daysAgo(USAGE_REQUESTS_KEPT_DAYS + 1)), request(daysAgo(USAGE_REQUESTS_KEPT_DAYS) ), request(daysAgo(1))]);
    expect(await new UsagePruner(store, clock).prune()).toBe(1);
    expect(store.requests.map((r) => r.at)).toEqual([daysAgo(USAGE_REQUESTS_KEPT_DAYS), daysAgo(1)]);
  });

  it('a store that does not answer is tried again the next hour, and the process goes on', async () => {
    const store = new InMemoryUsageStore();
    jest.spyOn(store, 'pruneRequests').mockRejectedValueOnce(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
    expect(await new UsagePruner(store, FixedClock.at('2026-06-01T00:00:00Z')).prune()).toBe(0);
  });
});
