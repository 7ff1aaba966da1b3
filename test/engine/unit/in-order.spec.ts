import { InOrder } from '../../../src/engine/models/in-order';

describe('InOrder (frames finished one after another)', () => {
  it('starts each piece of work once the one before has settled, a failed one included', async () => {
    const order = new InOrder();
    const events: string[] = [];
    let releaseFirst!: () => void;
    const first = order.run(() => new Promise<string>((resolve) => (releaseFirst = () => resolve('first'))).then((v) => (events.push('first done'), v)));
    const second = order.run(async () => {
      events.push('second started');
      throw new Error('second failed');
    });
    const third = order.run(async () => (events.push('third started'), 'third'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual([]);
    releaseFirst();
    await expect(first).resolves.toBe('first');
    await expect(second).rejects.toThrow('second failed');
    await expect(third).resolves.toBe('third');
    expect(events).toEqual(['first done', 'second started', 'third started']);
  });
});
