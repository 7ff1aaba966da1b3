import { RvmFrames, RvmOnDemand } from '../../../src/engine/models/rvm/rvm-on-demand';
import { RvmOutput } from '../../../src/engine/models/rvm/rvm-matter';
import { RgbFrame } from '../../../src/engine/types';

/** an RVM that records what it is given: frame indices, and 'restart' where the state was dropped */
function recordingRvm(): RvmFrames & { seen: (number | 'restart')[] } {
  const seen: (number | 'restart')[] = [];
  return {
    seen,
    restart: () => seen.push('restart'),
    matte: (frame: RgbFrame) => {
      seen.push(frame.index);
      return Promise.resolve({ alpha: Float32Array.of(frame.index), alphaBytes: Uint8Array.of(frame.index) } as RvmOutput);
    },
  };
}

const frame = (index: number): RgbFrame => ({ index, width: 1, height: 1, data: Buffer.alloc(3) });

describe('original: RVM on the frames whose people plane is read', () => {
  it('runs every frame as it arrives while people matter, and hands each frame its own output', async () => {
    const rvm = recordingRvm();
    const people = new RvmOnDemand(rvm, 2);
    const sequences = [0, 1, 2, 3].map((i) => people.add(frame(10 + i)));
    expect(rvm.seen).toEqual([10, 11]); // the first `lag` frames go at once, the next wait for the frames before
    people.setMode(sequences[0], true);
    people.setMode(sequences[1], true);
    expect(rvm.seen).toEqual([10, 11, 12, 13]);
    expect((await people.take(sequences[0])).alpha[0]).toBe(10);
    expect((await people.take(sequences[1])).alpha[0]).toBe(11);
  });

  it('with objects alone, only frames that are read reach RVM, and it starts afresh after a frame it did not see', async () => {
    const rvm = recordingRvm();
    const people = new RvmOnDemand(rvm, 1);
    const [a, b, c, d] = [0, 1, 2, 3].map((i) => people.add(frame(i)));
    expect(rvm.seen).toEqual([0]);
    people.setMode(a, false); // a car chosen: frame 1 does not go ahead
    await people.take(a);
    people.skip(b);
    people.setMode(b, false);
    people.skip(c);
    people.setMode(c, false);
    expect(rvm.seen).toEqual([0]);
    expect((await people.take(d)).alpha[0]).toBe(3); // a keyframe: its people plane is read
    expect(rvm.seen).toEqual([0, 'restart', 3]);
  });

  it('a held frame (blank) never goes ahead, even among the first frames, and RVM starts afresh after it', async () => {
    const rvm = recordingRvm();
    const people = new RvmOnDemand(rvm, 2);
    const held = people.add(frame(0), true);
    const next = people.add(frame(1));
    expect(rvm.seen).toEqual([]); // frame 1 may go ahead, but not before the held frame 0
    people.skip(held);
    people.setMode(held, false);
    expect(rvm.seen).toEqual(['restart', 1]);
    people.setMode(next, true);
    expect((await people.take(next)).alpha[0]).toBe(1);
    const after = people.add(frame(2), true);
    people.skip(after);
    people.setMode(after, false);
    const later = people.add(frame(3));
    expect((await people.take(later)).alpha[0]).toBe(3);
    expect(rvm.seen).toEqual(['restart', 1, 'restart', 3]);
  });

  it('a held frame stays held when the frame that decides it is finished after it came (a fade to black while people matter)', async () => {
    const rvm = recordingRvm();
    const people = new RvmOnDemand(rvm, 2);
    const pictures = [0, 1].map((i) => people.add(frame(i)));
    const blanks = [2, 3].map((i) => people.add(frame(i), true));
    expect(rvm.seen).toEqual([0, 1]);
    for (const sequence of pictures) {
      people.setMode(sequence, true); // people matter: they would send frames 2 and 3 ahead
      await people.take(sequence);
    }
    expect(rvm.seen).toEqual([0, 1]);
    for (const sequence of blanks) {
      people.skip(sequence);
      people.setMode(sequence, false);
    }
    expect((await people.take(people.add(frame(4)))).alpha[0]).toBe(4);
    expect(rvm.seen).toEqual([0, 1, 'restart', 4]);
  });

  it('a frame decided to go ahead waits behind one that is not: RVM sees frames in order', async () => {
    const rvm = recordingRvm();
    const people = new RvmOnDemand(rvm, 2);
    const s = [0, 1, 2, 3, 4].map((i) => people.add(frame(i)));
    people.setMode(s[0], false); // frame 2 waits for its own turn
    people.setMode(s[1], true); // frame 3 may go ahead, but not before frame 2
    expect(rvm.seen).toEqual([0, 1]);
    await people.take(s[0]);
    await people.take(s[1]);
    await people.take(s[2]); // frame 2 is read after all: it runs, and frame 3 follows it
    expect(rvm.seen).toEqual([0, 1, 2, 3]);
    people.skip(s[3]); // already run: nothing is dropped from the state
    expect((await people.take(s[4])).alpha[0]).toBe(4);
    expect(rvm.seen).toEqual([0, 1, 2, 3, 4]);
  });

  it('a frame that failed before it was taken leaves with the next one, and counts as not seen', async () => {
    const rvm = recordingRvm();
    const people = new RvmOnDemand(rvm, 1);
    const [a, b, c] = [0, 1, 2].map((i) => people.add(frame(i)));
    people.setMode(a, false);
    people.setMode(b, false);
    expect(rvm.seen).toEqual([0]);
    await people.take(c); // frames 0 and 1 never taken
    expect(rvm.seen).toEqual([0, 'restart', 2]);
    expect(() => people.take(a)).toThrow(/not waiting/);
  });
});
