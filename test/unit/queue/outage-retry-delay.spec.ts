import { DelayedError, Job as QueueJob } from 'bullmq';
import { handingBack, outageRetryDelayMs } from '../../../src/modules/jobs/adapters/bullmq/hand-back';

describe('the wait of a message stopped by an outage', () => {
  it('is 10 s at first, then half the outage so far, at most 2 minutes: about 25 runs in the 30 minutes of patience (a full disk had each URL job fetch its input 180 times)', () => {
    expect([0, 15_000, 60_000, 120_000, 600_000].map((outageFor) => outageRetryDelayMs(outageFor))).toEqual([10_000, 10_000, 30_000, 60_000, 120_000]);
    let runs = 0;
    for (let at = 0; at < 30 * 60_000; at += outageRetryDelayMs(at)) runs += 1;
    expect(runs).toBeLessThanOrEqual(30);
    expect(runs).toBeGreaterThanOrEqual(15);
  });
});

describe('a message stopped by an outage', () => {
  const refused = () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' }));
  /** a queue message as BullMQ hands it over, recording where it is moved */
  const messageWith = (data: Record<string, unknown>) => {
    const message = {
      data,
      delayedUntil: 0,
      updateData: async (next: Record<string, unknown>) => void (message.data = next),
      moveToDelayed: async (until: number) => void (message.delayedUntil = until),
    };
    return message;
  };
  const stop = async (message: ReturnType<typeof messageWith>): Promise<number> => {
    await expect(handingBack(message as unknown as QueueJob, 'token', refused)).rejects.toBeInstanceOf(DelayedError);
    return message.delayedUntil - Date.now();
  };

  it('waits out a second outage long after the first as a new one: 10 s at first, not 2 minutes at once with a third of its patience', async () => {
    const twentyMinutesAgo = Date.now() - 20 * 60_000;
    const ranOnSince = messageWith({ outageSince: twentyMinutesAgo, outageStoppedAt: twentyMinutesAgo + 30_000 });
    expect(await stop(ranOnSince)).toBeLessThan(11_000);
    expect((ranOnSince.data.outageSince as number) > twentyMinutesAgo).toBe(true);
    // within an outage that goes on, the waits grow
    const goingOn = messageWith({ outageSince: Date.now() - 4 * 60_000, outageStoppedAt: Date.now() - 60_000 });
    expect(await stop(goingOn)).toBeGreaterThan(100_000);
  });
});
