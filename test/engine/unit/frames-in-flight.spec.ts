import { FramesInFlight } from '../../../src/engine/pipeline/frames-in-flight';
import { RgbFrame, SegmentationSession } from '../../../src/engine/types';

/** a session of 2x1 frames that holds up to `framesInFlight`; each fed frame waits until released */
function heldSession(framesInFlight?: number) {
  const session = { inputWidth: 2, inputHeight: 1, notes: [], framesInFlight } as unknown as SegmentationSession;
  const held: { index: number; release: () => void; fail: (error: Error) => void }[] = [];
  const finished: number[] = [];
  const feed = (frame: RgbFrame) =>
    new Promise<number>((resolve, reject) => {
      held.push({ index: frame.index, release: () => (finished.push(frame.index), resolve(frame.index)), fail: reject });
    });
  return { session, held, finished, feed };
}

/** `count` frames, then undefined */
function reader(count: number) {
  let read = 0;
  return async () => (read < count ? Buffer.alloc(6, read++) : undefined);
}

/** lets every pending promise callback run */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('FramesInFlight.drain (the survey and a chunk\'s pre-roll)', () => {
  it('hands over as many frames as the session keeps in flight before it waits for the oldest, and counts them all', async () => {
    const { session, held, feed } = heldSession(3);
    const drained = new FramesInFlight(session, feed).drain(reader(5));
    await settle();
    expect(held.map((h) => h.index)).toEqual([0, 1, 2]);
    held[1].release(); // a later frame done first frees no room: the oldest is awaited
    await settle();
    expect(held).toHaveLength(3);
    held[0].release();
    await settle();
    expect(held.map((h) => h.index)).toEqual([0, 1, 2, 3, 4]);
    for (const h of held.slice(2)) h.release();
    await expect(drained).resolves.toBe(5);
  });

  it('one frame at a time where the session says nothing', async () => {
    const { session, held, feed } = heldSession(undefined);
    const drained = new FramesInFlight(session, feed).drain(reader(2));
    await settle();
    expect(held).toHaveLength(1);
    held[0].release();
    await settle();
    expect(held).toHaveLength(2);
    held[1].release();
    await expect(drained).resolves.toBe(2);
  });

  it('fails with the first frame that failed, in order, once the frames before it are done', async () => {
    const { session, held, feed } = heldSession(4);
    const drained = new FramesInFlight(session, feed).drain(reader(4));
    let outcome: unknown = 'pending';
    drained.then(
      (count) => (outcome = count),
      (error: Error) => (outcome = error.message),
    );
    await settle();
    held[2].fail(new Error('frame 2 failed'));
    held[3].fail(new Error('frame 3 failed'));
    await settle();
    expect(outcome).toBe('pending');
    held[0].release();
    held[1].release();
    await settle();
    expect(outcome).toBe('frame 2 failed');
  });

  it('gives each frame its index and the session\'s input size', async () => {
    const { session } = heldSession(2);
    const seen: RgbFrame[] = [];
    const count = await new FramesInFlight(session, async (frame) => seen.push(frame)).drain(reader(3));
    expect(count).toBe(3);
    expect(seen.map(({ index, width, height, data }) => [index, width, height, data[0]])).toEqual([
      [0, 2, 1, 0],
      [1, 2, 1, 1],
      [2, 2, 1, 2],
    ]);
  });

  it('tells a session that keeps several frames in flight that they come ahead, and when they end; not one that keeps one', async () => {
    const calls: string[] = [];
    const tell = (framesInFlight?: number) => ({ ...heldSession(framesInFlight).session, feedsAhead: () => calls.push('ahead'), framesEnded: () => calls.push('ended') }) as SegmentationSession;
    const fed = (session: SegmentationSession) => new FramesInFlight(session, async (frame) => calls.push(`frame ${frame.index}`));
    await fed(tell(2)).drain(reader(2));
    expect(calls).toEqual(['ahead', 'frame 0', 'frame 1', 'ended']);
    calls.length = 0;
    await fed(tell(undefined)).drain(reader(1));
    expect(calls).toEqual(['frame 0', 'ended']);
  });
});
