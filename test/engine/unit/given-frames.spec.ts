import { GivenFrames } from '../../../src/engine/models/given-frames';

/** whether `promise` has settled after the callbacks due now have run, and its value */
async function settledNow<T>(promise: Promise<T>): Promise<{ settled: boolean; value?: T }> {
  let outcome: { settled: boolean; value?: T } = { settled: false };
  void promise.then((value) => (outcome = { settled: true, value }));
  await new Promise((resolve) => setImmediate(resolve));
  return outcome;
}

describe('GivenFrames (the frames a session holds, and a wait for a later one)', () => {
  it('holds each frame until it is finished', async () => {
    const frames = new GivenFrames<string>();
    frames.add(0, 'a');
    frames.add(1, 'b');
    frames.finished(0);
    expect([frames.get(0), frames.get(1)]).toEqual([undefined, 'b']);
    await expect(frames.waitFor(1)).resolves.toBe(true);
  });

  it('waits for a frame not yet given: true once it comes, false where a later one comes first', async () => {
    const frames = new GivenFrames<string>();
    frames.add(0, 'a');
    const third = frames.waitFor(2);
    frames.add(1, 'b');
    expect(await settledNow(third)).toEqual({ settled: false });
    frames.add(2, 'c');
    expect(await settledNow(third)).toEqual({ settled: true, value: true });
    const fifth = frames.waitFor(4);
    frames.add(5, 'f');
    expect(await settledNow(fifth)).toEqual({ settled: true, value: false });
  });

  it('stops a wait when the frames end, waits no more until a frame is given again, and says when the numbering starts again', async () => {
    const frames = new GivenFrames<string>();
    expect(frames.add(0, 'a')).toBe(true);
    expect(frames.add(1, 'b')).toBe(true);
    const waiting = frames.waitFor(3);
    frames.ended();
    expect(await settledNow(waiting)).toEqual({ settled: true, value: false });
    await expect(frames.waitFor(4)).resolves.toBe(false);
    frames.finished(0);
    frames.finished(1);
    // a chunk's own frames after its pre-roll, from 0 again
    expect(frames.add(0, 'x')).toBe(false);
    const next = frames.waitFor(1);
    expect(await settledNow(next)).toEqual({ settled: false });
    expect(frames.add(1, 'y')).toBe(true);
    expect(await settledNow(next)).toEqual({ settled: true, value: true });
  });

  it('says whether the caller gives frames ahead of their turn', () => {
    const frames = new GivenFrames<string>();
    expect(frames.fedAhead).toBe(false);
    frames.feedsAhead();
    expect(frames.fedAhead).toBe(true);
  });
});
