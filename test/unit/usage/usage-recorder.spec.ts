import { loadConfig } from '../../../src/config/app-config';
import { InMemoryUsageStore } from '../../../src/modules/usage/adapters/in-memory/in-memory.usage-store';
import { UsageRecorder } from '../../../src/modules/usage/application/usage-recorder';
import { summarise, windowDays } from '../../../src/modules/usage/domain/usage-summary';
import { RequestRecord } from '../../../src/modules/usage/ports/usage-store';

const request = (i: number, at = new Date('2026-01-02T10:00:00Z')): RequestRecord => ({ apiKeyId: 'key_a', method: 'GET', path: `/v1/jobs/${i}`, statusCode: 200, durationMs: 3, jobId: null, credits: 0, at });

describe('UsageRecorder on the in-memory usage store', () => {
  it('buffers requests off the request path and writes them all at the next flush, once', async () => {
    const store = new InMemoryUsageStore();
    const recorder = new UsageRecorder(store, loadConfig({}));
    recorder.record(request(1));
    recorder.record(request(2));
    expect(store.requests).toHaveLength(0);
    await Promise.all([recorder.flush(), recorder.flush()]);
    expect(store.requests.map((r) => r.path)).toEqual(['/v1/jobs/1', '/v1/jobs/2']);
  });

  it('writes a full buffer (500) without waiting for the interval', async () => {
    const store = new InMemoryUsageStore();
    const recorder = new UsageRecorder(store, loadConfig({}));
    // no interval runs here (onModuleInit is not called): only a full buffer writes
    const settled = () => new Promise((resolve) => setTimeout(resolve, 20));
    for (let i = 0; i < 499; i++) recorder.record(request(i));
    await settled();
    expect(store.requests).toHaveLength(0);
    recorder.record(request(499));
    await settled();
    expect(store.requests).toHaveLength(500);
  });

  it('a batch a store that is down refuses is kept and written with the next, in order (it was lost); the caller never fails', async () => {
    const store = new InMemoryUsageStore();
    const recorder = new UsageRecorder(store, loadConfig({}));
    store.failing = true;
    recorder.record(request(1));
    await expect(recorder.flush()).resolves.toBeUndefined();
    recorder.record(request(2));
    await expect(recorder.flush()).resolves.toBeUndefined();
    store.failing = false;
    recorder.record(request(3));
    await recorder.flush();
    expect(store.requests.map((r) => r.path)).toEqual(['/v1/jobs/1', '/v1/jobs/2', '/v1/jobs/3']);
    await recorder.flush();
    expect(store.requests).toHaveLength(3);
  });

  it('keeps the newest 10,000 of what a store that stays down refuses', async () => {
    const store = new InMemoryUsageStore();
    const recorder = new UsageRecorder(store, loadConfig({}));
    store.failing = true;
    for (let i = 0; i < 10_250; i++) recorder.record(request(i));
    await recorder.flush();
    store.failing = false;
    await recorder.flush();
    expect(store.requests).toHaveLength(10_000);
    expect(store.requests[0].path).toBe('/v1/jobs/250');
  });

  it('while a write hangs, keeps the newest 10,000 records and queues one flush (each record past 500 queued one, and the buffer grew without bound)', async () => {
    let resume = (): void => undefined;
    const writes: number[] = [];
    const store = new InMemoryUsageStore();
    const insert = store.insertRequests.bind(store);
    store.insertRequests = async (batch) => {
      writes.push(batch.length);
      if (writes.length === 1) await new Promise<void>((resolve) => (resume = resolve));
      return insert(batch);
    };
    const recorder = new UsageRecorder(store, loadConfig({}));
    for (let i = 0; i < 500; i++) recorder.record(request(i));
    await new Promise((resolve) => setTimeout(resolve, 20)); // the first write hangs
    for (let i = 500; i < 30_500; i++) recorder.record(request(i));
    resume();
    await recorder.flush();
    expect(writes).toEqual([500, 10_000]);
    expect(store.requests[500].path).toBe('/v1/jobs/20500');
  });

  it('what was recorded sums into the usage window, zero days included', async () => {
    const store = new InMemoryUsageStore();
    const recorder = new UsageRecorder(store, loadConfig({}));
    recorder.record(request(1, new Date('2026-01-01T23:59:00Z')));
    recorder.record(request(2, new Date('2026-01-03T00:01:00Z')));
    await recorder.flush();
    const days = windowDays(new Date('2026-01-03T12:00:00Z'), 3);
    const { totals, daily } = summarise(days, await store.dailyCounters('key_a', new Date('2026-01-01T00:00:00Z')));
    expect(daily.map((day) => [day.date, day.requests])).toEqual([['2026-01-01', 1], ['2026-01-02', 0], ['2026-01-03', 1]]);
    expect(totals.requests).toBe(2);
  });
});
