import { oneAtATime } from '../../../src/common/one-at-a-time';

describe('oneAtATime', () => {
  it('a call while the task runs joins that run; a call after it ends starts the next', async () => {
    const releases: Array<(value: number) => void> = [];
    const sweep = oneAtATime(() => new Promise<number>((resolve) => releases.push(resolve)));
    const first = sweep();
    const second = sweep();
    expect(releases).toHaveLength(1);
    releases[0](7);
    expect(await Promise.all([first, second])).toEqual([7, 7]);
    const third = sweep();
    expect(releases).toHaveLength(2);
    releases[1](8);
    expect(await third).toBe(8);
  });

  it('a run that fails fails its callers and leaves the next call free to start', async () => {
    let calls = 0;
    const sweep = oneAtATime(async () => {
      calls += 1;
      if (calls === 1) throw new Error('the queue is down');
      return calls;
    });
    await expect(sweep()).rejects.toThrow('the queue is down');
    expect(await sweep()).toBe(2);
  });
});
