import { Job as QueueJob } from 'bullmq';
import { untilWritten } from '../../../src/common/until-written';
import { AppConfig } from '../../../src/config/app-config';
import { ProcessJobProcessor } from '../../../src/modules/jobs/adapters/bullmq/process-job.processor';
import { ChunkedJobHandler } from '../../../src/modules/jobs/application/chunked-job.handler';
import { ProcessJobHandler } from '../../../src/modules/jobs/application/process-job.handler';

/** a write that fails `failures` times (the database away), then lands */
function flakyWrite(failures: number) {
  const calls: number[] = [];
  const write = jest.fn(async () => {
    calls.push(calls.length);
    if (calls.length <= failures) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
  });
  return write;
}

describe('untilWritten', () => {
  it('tries again after each wait until the write lands', async () => {
    const write = flakyWrite(2);
    const retries: unknown[] = [];
    expect(await untilWritten(write, (error) => retries.push(error), [0, 0, 0])).toBe(true);
    expect(write).toHaveBeenCalledTimes(3);
    expect(retries).toHaveLength(2);
  });

  it("throws at once an error that `passes` says will not pass, and tries again one that will", async () => {
    const write = jest.fn().mockRejectedValueOnce(new Error('away')).mockRejectedValueOnce(new Error('a bug'));
    await expect(untilWritten(write, () => undefined, [0, 0, 0], (error) => (error as Error).message === 'away')).rejects.toThrow('a bug');
    expect(write).toHaveBeenCalledTimes(2);
  });

  it('gives up after its last wait', async () => {
    const write = flakyWrite(10);
    expect(await untilWritten(write, () => undefined, [0, 0])).toBe(false);
    expect(write).toHaveBeenCalledTimes(3);
  });
});

describe('the jobs queue giving up on a message', () => {
  const processorWith = (abandon: jest.Mock, chunkGaveUp: jest.Mock = jest.fn()) => {
    const processor = new ProcessJobProcessor({ abandon } as unknown as ProcessJobHandler, { chunkGaveUp } as unknown as ChunkedJobHandler, {} as AppConfig);
    processor.endRetryDelaysMs = [0, 0, 0, 0];
    return processor;
  };

  it("fails the job once the database is back (the same outage failed the message and, tried once, the job's failure: it stayed processing)", async () => {
    const abandon = flakyWrite(3);
    const message = { name: 'process', data: { jobId: 'job_1' }, attemptsMade: 3, opts: { attempts: 3 } } as unknown as QueueJob;
    await processorWith(abandon).onFailed(message, Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
    expect(abandon).toHaveBeenCalledTimes(4);
    // the job's error, which the client reads, does not name the service's own addresses
    expect(abandon).toHaveBeenLastCalledWith('job_1', 'a service it needs (its database, queue or storage) could not be reached');
  });

  it("gives the job the queue's reason where it was not an outage", async () => {
    const abandon = jest.fn(async () => undefined);
    const message = { name: 'process', data: { jobId: 'job_3' }, attemptsMade: 3, opts: { attempts: 3 } } as unknown as QueueJob;
    await processorWith(abandon).onFailed(message, new Error('job stalled more than allowable limit'));
    expect(abandon).toHaveBeenLastCalledWith('job_3', 'job stalled more than allowable limit');
  });

  it('fails the job of a chunk the queue left failed, as many times as it takes', async () => {
    const chunkGaveUp = flakyWrite(1);
    const message = { name: 'chunk', data: { jobId: 'job_2', index: 1 }, attemptsMade: 3, opts: { attempts: 3 }, getState: async () => 'failed' } as unknown as QueueJob;
    await processorWith(jest.fn(), chunkGaveUp).onFailed(message, new Error('boom'));
    expect(chunkGaveUp).toHaveBeenCalledTimes(2);
  });
});
