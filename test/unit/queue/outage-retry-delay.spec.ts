import { outageRetryDelayMs } from '../../../src/modules/jobs/adapters/bullmq/hand-back';

describe('the wait of a message stopped by an outage', () => {
  it('is 10 s at first, then half the outage so far, at most 2 minutes: about 25 runs in the 30 minutes of patience (a full disk had each URL job fetch its input 180 times)', () => {
    expect([0, 15_000, 60_000, 120_000, 600_000].map((outageFor) => outageRetryDelayMs(outageFor))).toEqual([10_000, 10_000, 30_000, 60_000, 120_000]);
    let runs = 0;
    for (let at = 0; at < 30 * 60_000; at += outageRetryDelayMs(at)) runs += 1;
    expect(runs).toBeLessThanOrEqual(30);
    expect(runs).toBeGreaterThanOrEqual(15);
  });
});
