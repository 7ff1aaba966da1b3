import { ConcurrencyLimit } from '../../../src/common/concurrency-limit';

describe('ConcurrencyLimit', () => {
  it('runs at most its limit at once, the rest in the order they came, whether tasks succeed or fail', async () => {
    const limit = new ConcurrencyLimit(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const finish: Array<() => void> = [];
    const tasks = [0, 1, 2, 3, 4].map((i) =>
      limit.run(async () => {
        started.push(i);
        running += 1;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => finish.push(resolve));
        running -= 1;
        if (i === 1) throw new Error('task 1 failed');
        return i;
      }),
    );
    const settled = Promise.allSettled(tasks);
    const tick = () => new Promise((resolve) => setImmediate(resolve));
    await tick();
    expect(started).toEqual([0, 1]);
    finish[1]();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    while (finish.length < 5) {
      finish.forEach((release) => release());
      await tick();
    }
    finish.forEach((release) => release());
    const outcomes = await settled;
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect([started, most]).toEqual([[0, 1, 2, 3, 4], 2]);
    // every slot was given back: as many again run at once
    const again = await Promise.all([limit.run(async () => 'a'), limit.run(async () => 'b')]);
    expect(again).toEqual(['a', 'b']);
  });
});
