import { HumanModel } from '../../../src/engine/models/human/human-model';
import { LightModel } from '../../../src/engine/models/light/light-model';
import { IsnetSegmenter } from '../../../src/engine/models/isnet/isnet-segmenter';
import { NanodetDetector } from '../../../src/engine/models/pro/nanodet-detector';
import { ProModel } from '../../../src/engine/models/pro/pro-model';
import { SurveyedProSession } from '../../../src/engine/models/pro/surveyed-session';
import { Int8Arithmetic, int8Arithmetic } from '../../../src/engine/models/runtime/cpu-features';
import { openPeopleRvm } from '../../../src/engine/models/rvm/people-rvm';
import { RvmMatter } from '../../../src/engine/models/rvm/rvm-matter';
import { pipelinedAt, RvmGeometry } from '../../../src/engine/models/rvm/rvm-model-file';

/** what `original` and `pro` ask of RVM for their people, with a stand-in for the model (no inference here) */
async function peopleRvm(width: number, height: number, arithmetic: Int8Arithmetic, mirrored?: boolean) {
  const opened: RvmGeometry[] = [];
  let streams = 0;
  const open = async (geometry: RvmGeometry) => {
    opened.push(geometry);
    return { width: geometry.width, height: geometry.height, geometry, stream: () => ({ id: ++streams }) } as unknown as RvmMatter;
  };
  const session = await openPeopleRvm(open, width, height, { arithmetic, mirrored });
  return { session, opened, streams };
}

describe("the people RVM of `original` and `pro`", () => {
  it('with 8-bit dot products: int8 at human\'s geometry, pipelined, and the mirrored frame matted on a second state', async () => {
    const { session, opened, streams } = await peopleRvm(1920, 1080, 'dot-product');
    expect(opened).toEqual([{ width: 640, height: 360, ratio: 1, precision: 'int8', stages: 2 }]);
    expect(session.mirrored).toBe(true);
    expect(session.trimmedBySmallMirror).toBe(false);
    expect(streams).toBe(2);
  });

  it("with AVX2 alone: one int8 pass, the decoder in two stages of its own, trimmed by light's RVM over the mirrored frames (the pair would cost twice as much there)", async () => {
    const { session, opened, streams } = await peopleRvm(360, 640, 'pairwise');
    expect(opened).toEqual([
      { width: 360, height: 640, ratio: 1, precision: 'int8', stages: 3 },
      { width: 180, height: 320, ratio: 1, precision: 'int8', stages: 3 },
    ]);
    expect(session.mirrored).toBe(false);
    expect(session.trimmedBySmallMirror).toBe(true);
    expect(streams).toBe(2);
  });

  it("without int8 arithmetic: one fp32 pass, in three stages, trimmed by light's RVM over the mirrored frames", async () => {
    const { session, opened, streams } = await peopleRvm(360, 640, 'none');
    expect(opened).toEqual([
      { width: 360, height: 640, ratio: 1, precision: 'float32', stages: 3 },
      { width: 180, height: 320, ratio: 1, precision: 'float32', stages: 3 },
    ]);
    expect(session.mirrored).toBe(false);
    expect(session.trimmedBySmallMirror).toBe(true);
    expect(streams).toBe(2);
  });
});

describe("the RVM of `pro`'s survey (a prompt with attributes)", () => {
  it.each<Int8Arithmetic>(['dot-product', 'pairwise', 'none'])('one pass on every CPU (%s): its mattes are read for tracks and colours, never shown', async (arithmetic) => {
    const { session, opened, streams } = await peopleRvm(1920, 1080, arithmetic, false);
    expect(opened).toHaveLength(1);
    expect(session.mirrored).toBe(false);
    expect(session.trimmedBySmallMirror).toBe(false);
    expect(streams).toBe(1);
  });

  it('through `pro`: the output pass takes the pair where the CPU has 8-bit dot products (elsewhere a state of its own and one for the small pass), the survey one state', async () => {
    const states: number[] = [];
    const rvm = async (geometry: RvmGeometry) => {
      let streams = 0;
      states.push(0);
      const index = states.length - 1;
      return { width: geometry.width, height: geometry.height, geometry, stream: () => ((states[index] = ++streams), { id: streams }) } as unknown as RvmMatter;
    };
    const isnet = async (size: { width: number; height: number }) => ({ ...size, close: async () => undefined }) as unknown as IsnetSegmenter;
    const model = new ProModel(isnet, async () => ({}) as NanodetDetector, rvm);
    const session = await model.createSession({ width: 1280, height: 720, fps: 25, textPrompt: 'person wearing red jacket' });
    expect(session).toBeInstanceOf(SurveyedProSession);
    expect(states).toEqual(int8Arithmetic() === 'dot-product' ? [2, 1] : [1, 1, 1]);
  });
});

describe('the RVM of `human`', () => {
  it("runs at human's geometry, pipelined (the encoder of the next frame beside the decoder of this one), with light's RVM over the mirrored frames, a state each", async () => {
    const opened: RvmGeometry[] = [];
    let streams = 0;
    const rvm = async (geometry: RvmGeometry) => {
      opened.push(geometry);
      return { width: geometry.width, height: geometry.height, geometry, stream: () => ({ id: ++streams }) } as unknown as RvmMatter;
    };
    const model = new HumanModel({ rvm, detector: async () => ({}) as NanodetDetector });
    const session = await model.createSession({ width: 1280, height: 720, fps: 25 });
    expect(opened).toEqual([expect.objectContaining({ width: 640, height: 360, ratio: 1, ...pipelinedAt() }), expect.objectContaining({ width: 320, height: 180, ratio: 1, ...pipelinedAt() })]);
    expect(streams).toBe(2);
    expect(session.framesInFlight).toBeGreaterThan(1);
  });
});

describe('the RVM of `light`', () => {
  it("opens RVM at light's geometry, in this CPU's precision and stages", async () => {
    const opened: RvmGeometry[] = [];
    const rvm = async (geometry: RvmGeometry) => {
      opened.push(geometry);
      return { width: geometry.width, height: geometry.height, geometry, stream: () => ({ id: 1 }) } as unknown as RvmMatter;
    };
    await new LightModel({ rvm, detector: async () => ({}) as NanodetDetector }).createSession({ width: 1280, height: 720, fps: 25 });
    expect(opened).toEqual([{ width: 320, height: 180, ratio: 1, ...pipelinedAt() }]);
  });
});
