import type { Queue } from 'bullmq';
import { loadConfig } from '../../../src/config/app-config';
import { jobsWorkerName } from '../../../src/infrastructure/queue/queue-connection';
import { CONSUMER_COUNT_TTL_MS, QueueProbe } from '../../../src/modules/health/queue-probe';

/** A queue whose worker list (as BullMQ's getWorkers gives it) the test sets, counting the asks. */
function queueListing(clients: () => Promise<Array<{ rawname?: string }>>) {
  const queue = { asks: 0, getWorkers: () => ((queue.asks += 1), clients()) };
  return queue;
}

describe('QueueProbe.consumers', () => {
  const config = loadConfig({ QUEUE_NAMESPACE: 'blue' });
  const ours = `jobs:w:${jobsWorkerName('blue')}`;
  const probe = (queue: ReturnType<typeof queueListing>) => new QueueProbe(queue as unknown as Queue, config);

  afterEach(() => jest.useRealTimers());

  it("counts this namespace's named workers and unnamed ones (a release before the names), not another namespace's", async () => {
    const queue = queueListing(async () => [{ rawname: ours }, { rawname: ours }, { rawname: `jobs:w:${jobsWorkerName('green')}` }, { rawname: 'jobs' }]);
    expect(await probe(queue).consumers()).toBe(3);
  });

  it('is undefined where the server answers the placeholder of a client list it does not give, or fails', async () => {
    expect(await probe(queueListing(async () => [{}])).consumers()).toBeUndefined();
    expect(await probe(queueListing(() => Promise.reject(new Error('NOPERM')))).consumers()).toBeUndefined();
  });

  it('asks the queue once for requests at once, and again only after CONSUMER_COUNT_TTL_MS', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
    const queue = queueListing(async () => [{ rawname: ours }]);
    const counting = probe(queue);
    expect(await Promise.all([counting.consumers(), counting.consumers(), counting.consumers()])).toEqual([1, 1, 1]);
    expect(await counting.consumers()).toBe(1);
    expect(queue.asks).toBe(1);
    jest.advanceTimersByTime(CONSUMER_COUNT_TTL_MS);
    expect(await counting.consumers()).toBe(1);
    expect(queue.asks).toBe(2);
  });

  it('gives up a count the queue does not answer within 2 s, and a later request asks again', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
    const queue = queueListing(() => new Promise(() => undefined));
    const counting = probe(queue);
    const first = counting.consumers();
    jest.advanceTimersByTime(2000);
    expect(await first).toBeUndefined();
    jest.advanceTimersByTime(CONSUMER_COUNT_TTL_MS);
    void counting.consumers();
    expect(queue.asks).toBe(2);
  });
});
