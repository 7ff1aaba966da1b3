import { DiscoveryService } from '@nestjs/core';
import { FlowProducer } from 'bullmq';
import { QueueConnections } from '../../../src/infrastructure/queue/queue-connections';

/** a flow producer whose backend never answers (BullMQ retries a Redis connection for ever) */
function unanswered(): FlowProducer {
  return Object.assign(Object.create(FlowProducer.prototype) as FlowProducer, { waitUntilReady: () => new Promise(() => undefined), on: () => undefined });
}

describe('QueueConnections at start', () => {
  afterEach(() => jest.useRealTimers());

  it('gives up on a queue backend that does not answer within 60 s, naming REDIS_URL (the start waited for good)', async () => {
    jest.useFakeTimers();
    const discovery = { getProviders: () => [{ instance: unanswered() }] } as unknown as DiscoveryService;
    const ready = new QueueConnections(discovery).onApplicationBootstrap();
    let settled = false;
    const outcome = ready.then(() => 'ready', (error: Error) => error.message).finally(() => (settled = true));
    await jest.advanceTimersByTimeAsync(59_999);
    expect(settled).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(await outcome).toBe('the queue backend (REDIS_URL, else the database) did not answer within 60000 ms');
  });
});
