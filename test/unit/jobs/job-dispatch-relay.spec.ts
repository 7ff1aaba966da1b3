import { Logger } from '@nestjs/common';
import { FixedClock } from '../../../src/common/clock';
import { loadConfig } from '../../../src/config/app-config';
import { InMemoryJobDispatcher } from '../../../src/modules/jobs/adapters/in-memory/in-memory.job-dispatcher';
import { InMemoryJobRepository } from '../../../src/modules/jobs/adapters/in-memory/in-memory.job.repository';
import { JobDispatchRelay } from '../../../src/modules/jobs/application/job-dispatch-relay';

describe('JobDispatchRelay while the queue is away', () => {
  afterEach(() => jest.restoreAllMocks());

  it('warns once for the hand-offs that fail within 30 s, counting the rest, and says once when a sweep hands everything over again', async () => {
    const warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const logs = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    const dispatcher = new InMemoryJobDispatcher();
    const relay = new JobDispatchRelay(new InMemoryJobRepository(), dispatcher, FixedClock.at('2026-01-01T00:00:00Z'), loadConfig({}));
    dispatcher.failNext(3);
    for (const id of ['job_a', 'job_b', 'job_c']) expect(await relay.relay(id)).toBe(false);
    expect(warnings).toHaveBeenCalledTimes(1);
    expect(warnings.mock.calls[0][0]).toMatch(/^job job_a committed but not queued yet/);

    expect(await relay.sweep()).toBe(0);
    await relay.sweep();
    expect(logs.mock.calls.map(([message]) => message)).toEqual(['the relay hands jobs to the queue again']);
  });
});
