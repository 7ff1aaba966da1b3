import { PeopleMatter } from '../../../src/engine/models/pro/people-matter';
import { RvmSession } from '../../../src/engine/models/rvm/rvm-session';

/**
 * `pro` reads RVM's people on the detector's keyframes and on every frame while a person is
 * tracked. RVM is recurrent: a frame it was not shown breaks its state, so the next one starts
 * afresh. While a person is tracked, frames go to RVM as they arrive (frames in flight), decided by
 * the frame `lag` before them.
 */
function recordingRvm(): { rvm: RvmSession; events: string[] } {
  const events: string[] = [];
  const rvm = {
    inputWidth: 4,
    inputHeight: 2,
    matte: (frame: { index: number; width: number; height: number; data: Uint8Array }) => {
      events.push(`frame ${frame.index} at ${frame.width}x${frame.height} (${frame.data.length} bytes)`);
      return Promise.resolve({ alpha: new Float32Array(8).fill(0.5) });
    },
    restart: () => void events.push('restart'),
  } as unknown as RvmSession;
  return { rvm, events };
}

const frame = (index: number) => ({ index, width: 8, height: 8, data: Buffer.alloc(8 * 8 * 3) });
const shown = (index: number) => `frame ${index} at 4x2 (24 bytes)`;

describe("pro's people matte", () => {
  it('carries the state over consecutive frames read, and restarts it after a frame RVM was not shown', async () => {
    const { rvm, events } = recordingRvm();
    const people = new PeopleMatter(rvm, 4);
    const read = new Set([0, 1, 2, 6, 7, 12]);
    for (let index = 0; index <= 12; index++) {
      const sequence = people.add(frame(index));
      if (read.has(index)) await people.alphaOf(sequence, 8, 8);
      else people.skip(sequence);
      people.finished(sequence, false); // no person tracked: nothing goes ahead
    }
    expect(events).toEqual([shown(0), shown(1), shown(2), 'restart', shown(6), shown(7), 'restart', shown(12)]);
    expect(people.ran).toBe(6);
  });

  it('while a person is tracked, gives RVM the frames `lag` on as they arrive, before they are read', async () => {
    const { rvm, events } = recordingRvm();
    const people = new PeopleMatter(rvm, 2);
    const [first, second] = [people.add(frame(0)), people.add(frame(1))];
    expect(events).toEqual([]); // nothing is known of the first frames: they wait until read
    await people.alphaOf(first, 8, 8);
    people.finished(first, true);
    await people.alphaOf(second, 8, 8);
    people.finished(second, true);
    const [third, fourth] = [people.add(frame(2)), people.add(frame(3))];
    expect(events).toEqual([shown(0), shown(1), shown(2), shown(3)]); // ahead of their turn
    people.skip(third); // it ran ahead anyway: the state goes on
    people.finished(third, false);
    await people.alphaOf(fourth, 8, 8);
    people.finished(fourth, false);
    const fifth = people.add(frame(4)); // decided by the third frame: nobody tracked, it waits
    expect(events).toHaveLength(4);
    people.skip(fifth);
    people.finished(fifth, false);
    await people.alphaOf(people.add(frame(5)), 8, 8);
    expect(events.slice(4)).toEqual(['restart', shown(5)]);
    expect(people.ran).toBe(5);
  });

  it("gives RVM's alpha at pro's size", async () => {
    const { rvm } = recordingRvm();
    const people = new PeopleMatter(rvm, 4);
    const alpha = await people.alphaOf(people.add(frame(0)), 8, 8);
    expect(alpha).toHaveLength(64);
    expect([...alpha].every((value) => Math.abs(value - 0.5) < 1e-6)).toBe(true);
  });
});
