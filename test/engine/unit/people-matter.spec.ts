import { PeopleMatter } from '../../../src/engine/models/pro/people-matter';
import { RvmSession } from '../../../src/engine/models/rvm/rvm-session';

/**
 * `pro` asks RVM for frames where it reads people (the detector's keyframes, and every frame while a
 * person is tracked). RVM is recurrent: a frame it was not shown breaks its state, so the next one
 * starts afresh.
 */
function recordingRvm(): { rvm: RvmSession; events: string[] } {
  const events: string[] = [];
  const rvm = {
    inputWidth: 4,
    inputHeight: 2,
    last: { alpha: new Float32Array(8).fill(0.5) },
    segment: async (frame: { index: number }) => void events.push(`frame ${frame.index}`),
    restart: () => void events.push('restart'),
  } as unknown as RvmSession;
  return { rvm, events };
}

describe("pro's people matte", () => {
  it('carries the state over consecutive frames and restarts it after a frame RVM was not shown', async () => {
    const { rvm, events } = recordingRvm();
    const people = new PeopleMatter(rvm);
    const rgb = new Uint8Array(8 * 8 * 3);
    for (const index of [0, 1, 2, 6, 7, 12]) await people.alphaAt(rgb, 8, 8, index);
    expect(events).toEqual(['frame 0', 'frame 1', 'frame 2', 'restart', 'frame 6', 'frame 7', 'restart', 'frame 12']);
    expect(people.ran).toBe(6);
  });

  it("gives RVM's alpha at pro's size", async () => {
    const { rvm } = recordingRvm();
    const alpha = await new PeopleMatter(rvm).alphaAt(new Uint8Array(8 * 8 * 3), 8, 8, 0);
    expect(alpha).toHaveLength(64);
    expect([...alpha].every((value) => Math.abs(value - 0.5) < 1e-6)).toBe(true);
  });
});
