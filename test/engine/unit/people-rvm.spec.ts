import { HumanModel } from '../../../src/engine/models/human/human-model';
import { NanodetDetector } from '../../../src/engine/models/pro/nanodet-detector';
import { openPeopleRvm } from '../../../src/engine/models/rvm/people-rvm';
import { RvmMatter } from '../../../src/engine/models/rvm/rvm-matter';
import { RvmGeometry } from '../../../src/engine/models/rvm/rvm-model-file';

/** what `original` and `pro` ask of RVM for their people, with a stand-in for the model (no inference here) */
async function peopleRvm(width: number, height: number, int8DotProduct: boolean) {
  const opened: RvmGeometry[] = [];
  let streams = 0;
  const open = async (geometry: RvmGeometry) => {
    opened.push(geometry);
    return { width: geometry.width, height: geometry.height, geometry, stream: () => ({ id: ++streams }) } as unknown as RvmMatter;
  };
  const session = await openPeopleRvm(open, width, height, int8DotProduct);
  return { session, opened, streams };
}

describe("the people RVM of `original` and `pro`", () => {
  it('with 8-bit dot products: int8 at human\'s geometry, pipelined, and the mirrored frame matted on a second state', async () => {
    const { session, opened, streams } = await peopleRvm(1920, 1080, true);
    expect(opened).toEqual([{ width: 640, height: 360, ratio: 1, precision: 'int8', pipelined: true }]);
    expect(session.mirrored).toBe(true);
    expect(streams).toBe(2);
  });

  it('without them: one fp32 pass, pipelined, since the mirrored pair would cost twice as much there', async () => {
    const { session, opened, streams } = await peopleRvm(360, 640, false);
    expect(opened).toEqual([{ width: 360, height: 640, ratio: 1, precision: 'float32', pipelined: true }]);
    expect(session.mirrored).toBe(false);
    expect(streams).toBe(1);
  });
});

describe('the RVM of `human`', () => {
  it("runs at human's geometry, pipelined (the encoder of the next frame beside the decoder of this one), on one state", async () => {
    const opened: RvmGeometry[] = [];
    let streams = 0;
    const rvm = async (geometry: RvmGeometry) => {
      opened.push(geometry);
      return { width: geometry.width, height: geometry.height, geometry, stream: () => ({ id: ++streams }) } as unknown as RvmMatter;
    };
    const model = new HumanModel({ rvm, detector: async () => ({}) as NanodetDetector });
    const session = await model.createSession({ width: 1280, height: 720, fps: 25 });
    expect(opened).toEqual([expect.objectContaining({ width: 640, height: 360, ratio: 1, pipelined: true })]);
    expect(streams).toBe(1);
    expect(session.framesInFlight).toBeGreaterThan(1);
  });
});
