import { IDLE_RVMS_KEPT, RECENTLY_ASKED_MS, RvmMatters } from '../../../src/engine/models/rvm/rvm-matters';
import { RvmGeometry } from '../../../src/engine/models/rvm/rvm-model-file';

/** an open RVM as the registry sees it: in use while a video's stream is open on it */
class FakeRvm {
  inUse = false;
  closed = false;
  constructor(readonly geometry: RvmGeometry) {}
  async close(): Promise<void> {
    this.closed = true;
  }
}

describe('the open RVMs of an engine process', () => {
  let clock: number;
  let opened: FakeRvm[];
  let matters: RvmMatters<FakeRvm>;
  const geometry = (height: number): RvmGeometry => ({ width: 640, height, ratio: 1, precision: 'int8', stages: 2 });
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  beforeEach(() => {
    clock = 0;
    opened = [];
    matters = new RvmMatters(
      async (g) => {
        const rvm = new FakeRvm(g);
        opened.push(rvm);
        return rvm;
      },
      IDLE_RVMS_KEPT,
      () => clock,
    );
  });

  it('opens one per geometry and shares it between videos', async () => {
    const [a, b] = await Promise.all([matters.get(geometry(360)), matters.get(geometry(360))]);
    expect(a).toBe(b);
    expect(opened).toHaveLength(1);
  });

  it(`closes the idle ones beyond the ${IDLE_RVMS_KEPT} most recently asked for (each aspect ratio a client sent kept 100-275 MB open for good)`, async () => {
    for (let index = 0; index < 8; index += 1) {
      await matters.get(geometry(300 + index));
      clock += RECENTLY_ASKED_MS;
      await settle();
    }
    await matters.get(geometry(400));
    expect(opened.filter((rvm) => rvm.closed).map((rvm) => rvm.geometry.height)).toEqual([300, 301, 302, 303]);
    expect(matters.size).toBe(IDLE_RVMS_KEPT + 1); // and the one asked for now
  });

  it(`never closes one a video streams on, nor one asked for within the last minute (its session is opening its other parts); keeps ${IDLE_RVMS_KEPT} idle beyond those`, async () => {
    const streamed = await matters.get(geometry(300));
    streamed.inUse = true;
    for (let index = 0; index < 6; index += 1) await matters.get(geometry(310 + index));
    clock += RECENTLY_ASKED_MS;
    const justAsked = await matters.get(geometry(320));
    await settle();
    expect(opened.filter((rvm) => rvm.closed).map((rvm) => rvm.geometry.height)).toEqual([310, 311]);
    await matters.get(geometry(330));
    await settle();
    expect([streamed.closed, justAsked.closed, opened.filter((rvm) => rvm.closed).length]).toEqual([false, false, 2]);
  });

  it('opens a geometry again once it was closed, and forgets an open that failed', async () => {
    let failNext = true;
    const flaky = new RvmMatters<FakeRvm>(async (g) => {
      if (failNext) {
        failNext = false;
        throw new Error('could not load');
      }
      return new FakeRvm(g);
    });
    await expect(flaky.get(geometry(360))).rejects.toThrow('could not load');
    await settle();
    await expect(flaky.get(geometry(360))).resolves.toBeInstanceOf(FakeRvm);
  });
});
