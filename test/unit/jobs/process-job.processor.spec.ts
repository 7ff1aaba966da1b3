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
    const message = { name: 'process', data: { jobId: 'job_1' }, attemptsMade: 3, opts: { attempts: 3 }, getState: async () => 'failed' } as unknown as QueueJob;
    await processorWith(abandon).onFailed(message, Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
    expect(abandon).toHaveBeenCalledTimes(4);
    // the job's error, which the client reads, does not name the service's own addresses
    expect(abandon).toHaveBeenLastCalledWith('job_1', 'a service it needs (its database, queue or storage) could not be reached');
  });

  it("gives the job the queue's reason where it was not an outage", async () => {
    const abandon = jest.fn(async () => undefined);
    const message = { name: 'process', data: { jobId: 'job_3' }, attemptsMade: 3, opts: { attempts: 3 }, getState: async () => 'failed' } as unknown as QueueJob;
    await processorWith(abandon).onFailed(message, new Error('job stalled more than allowable limit'));
    expect(abandon).toHaveBeenLastCalledWith('job_3', 'job stalled more than allowable limit');
  });

  it.each(['process', 'join'])("ends the job of a %s message failed for stalling too often with attempts left (it was taken for a retry: the job stayed processing, its credits held)", async (name) => {
    const abandon = jest.fn(async () => undefined);
    const joinGaveUp = jest.fn(async () => undefined);
    const processor = new ProcessJobProcessor({ abandon } as unknown as ProcessJobHandler, { joinGaveUp } as unknown as ChunkedJobHandler, {} as AppConfig);
    const stalled = Object.assign(new Error('job stalled more than allowable limit'), { name: 'UnrecoverableError' });
    const message = { name, data: { jobId: 'job_4', chunkKeys: [] }, attemptsMade: 1, opts: { attempts: 5 }, getState: async () => 'failed' } as unknown as QueueJob;
    await processor.onFailed(message, stalled);
    expect([abandon.mock.calls.length, joinGaveUp.mock.calls.length]).toEqual(name === 'process' ? [1, 0] : [0, 1]);
  });

  it('leaves a message the queue will try again (delayed or waiting) to its next attempt', async () => {
    const abandon = jest.fn(async () => undefined);
    for (const state of ['delayed', 'waiting']) {
      const message = { name: 'process', data: { jobId: 'job_5' }, attemptsMade: 1, opts: { attempts: 5 }, getState: async () => state } as unknown as QueueJob;
      await processorWith(abandon).onFailed(message, new Error('engine crashed'));
    }
    expect(abandon).not.toHaveBeenCalled();
  });

  it('decides by the attempts where the queue cannot be asked, and ends an unrecoverable failure', async () => {
    const abandon = jest.fn(async () => undefined);
    const unreachable = async () => Promise.reject(new Error('Connection is closed.'));
    const message = (attemptsMade: number) => ({ name: 'process', data: { jobId: 'job_6' }, attemptsMade, opts: { attempts: 5 }, getState: unreachable }) as unknown as QueueJob;
    await processorWith(abandon).onFailed(message(1), new Error('engine crashed'));
    expect(abandon).not.toHaveBeenCalled();
    await processorWith(abandon).onFailed(message(5), new Error('engine crashed'));
    await processorWith(abandon).onFailed(message(1), Object.assign(new Error('job stalled more than allowable limit'), { name: 'UnrecoverableError' }));
    expect(abandon).toHaveBeenCalledTimes(2);
  });

  it('fails the job of a chunk the queue left failed, as many times as it takes', async () => {
    const chunkGaveUp = flakyWrite(1);
    const message = { name: 'chunk', data: { jobId: 'job_2', index: 1 }, attemptsMade: 3, opts: { attempts: 3 }, getState: async () => 'failed' } as unknown as QueueJob;
    await processorWith(jest.fn(), chunkGaveUp).onFailed(message, new Error('boom'));
    expect(chunkGaveUp).toHaveBeenCalledTimes(2);
  });
});
