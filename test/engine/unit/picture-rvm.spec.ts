import { HumanModel } from '../../../src/engine/models/human/human-model';
import { LightModel } from '../../../src/engine/models/light/light-model';
import { NanodetDetector } from '../../../src/engine/models/pro/nanodet-detector';
import { PictureRvm, pictureFraming } from '../../../src/engine/models/rvm/picture-rvm';
import { RVM_PROFILES } from '../../../src/engine/models/rvm/rvm-geometry';
import { RvmMatter } from '../../../src/engine/models/rvm/rvm-matter';
import { pipelinedAt, RvmGeometry } from '../../../src/engine/models/rvm/rvm-model-file';
import { RvmSession } from '../../../src/engine/models/rvm/rvm-session';

/** a phone's upright picture (9:16) between pillarbox bars in a 640x360 frame */
const PHONE_PICTURE = { x0: 219 / 640, y0: 0, x1: 421 / 640, y1: 1 };

/**
 * A stand-in for RVM (no inference): its alpha is 1 where the frame it is shown is bright (or as
 * `alphaOf` says), and it records the sizes of the frames it sees.
 */
function brightnessMatter(geometry: RvmGeometry, seen: string[], alphaOf = (rgb: Uint8Array, i: number) => (rgb[3 * i] > 128 ? 1 : 0)): RvmMatter {
  const { width, height } = geometry;
  const stream = {
    next: async (rgb: Uint8Array) => {
      seen.push(`${width}x${height}`);
      const alpha = new Float32Array(width * height).map((_, i) => alphaOf(rgb, i));
      return { alpha, alphaBytes: new Uint8Array(alpha.map((v) => v * 255)), stageMs: [] };
    },
    reset: () => undefined,
    close: () => undefined,
  };
  return { width, height, geometry, stream: () => stream } as unknown as RvmMatter;
}

/** a frame of the framing's size: black, with a bright block over `block` (pixels) */
function frameWith(size: { width: number; height: number }, block: { left: number; top: number; right: number; bottom: number }) {
  const data = Buffer.alloc(size.width * size.height * 3);
  for (let y = block.top; y < block.bottom; y++) data.fill(230, 3 * (y * size.width + block.left), 3 * (y * size.width + block.right));
  return { index: 0, ...size, data };
}

describe('RVM on the picture between bars', () => {
  it("gives the picture RVM's pixels: a phone's upright picture in 640x360 goes to light's RVM at 180x320, the frames at 570x320", () => {
    const framing = pictureFraming(640, 360, PHONE_PICTURE, RVM_PROFILES.light);
    expect(framing.frame).toEqual({ width: 570, height: 320 });
    expect(framing.picture).toEqual({ left: 195, top: 0, right: 375, bottom: 320 });
    // letterbox: a 2.39:1 picture gets a 16:9 frame's pixels (rvm-geometry.ts)
    const letterbox = pictureFraming(640, 360, { x0: 0, y0: 46 / 360, x1: 1, y1: 314 / 360 }, RVM_PROFILES.light);
    expect(letterbox.picture.right - letterbox.picture.left).toBe(370);
    expect(letterbox.picture.bottom - letterbox.picture.top).toBe(156);
    expect(letterbox.frame).toEqual({ width: 370, height: 210 });
  });

  it('mattes the picture alone, the bars zero, and the whole frame once the bars give way', async () => {
    const framing = pictureFraming(640, 360, PHONE_PICTURE, RVM_PROFILES.light);
    const seen: string[] = [];
    const inPicture = new RvmSession(brightnessMatter({ width: 180, height: 320, ratio: 1 }, seen));
    const wholeGeometry = { width: 320, height: 180, ratio: 1 };
    const rvm = new PictureRvm(inPicture, framing, { ...wholeGeometry, open: async () => new RvmSession(brightnessMatter(wholeGeometry, seen)) });
    const { picture, frame } = framing;
    const alphaAt = (alpha: Float32Array, x: number, y: number) => alpha[y * frame.width + x];

    const inside = await rvm.matte(frameWith(frame, { left: picture.left + 40, top: 100, right: picture.left + 100, bottom: 200 }));
    expect(inside.alpha).toHaveLength(frame.width * frame.height);
    expect(alphaAt(inside.alpha, picture.left + 50, 150)).toBe(1);
    expect(alphaAt(inside.alpha, picture.left + 20, 150)).toBe(0);
    expect(inside.alpha.reduce((sum, v) => sum + v, 0)).toBe(60 * 100);
    expect(rvm.seesWholeFrame).toBe(false);

    // the next shot fills the frame: someone stands where the left bar was
    const later = await rvm.matte(frameWith(frame, { left: 20, top: 100, right: 120, bottom: 200 }));
    expect(rvm.seesWholeFrame).toBe(true);
    expect(alphaAt(later.alpha, 70, 150)).toBeCloseTo(1, 5);
    expect(alphaAt(later.alpha, 300, 150)).toBe(0);
    expect(seen).toEqual(['180x320', '320x180']);
    await rvm.close();
  });

  it("leaves the matte zero on bars' lines inside the picture's edges, where RVM takes the person on to the edge", async () => {
    const framing = pictureFraming(640, 360, PHONE_PICTURE, RVM_PROFILES.light);
    const { picture, frame } = framing;
    // RVM taking everything it is shown for the person
    const inPicture = new RvmSession(brightnessMatter({ width: 180, height: 320, ratio: 1 }, [], () => 1));
    const rvm = new PictureRvm(inPicture, framing, { width: 320, height: 180, open: async () => inPicture });
    // the picture starts two columns inside the box found on the coarser still, on both sides
    const shown = frameWith(frame, { left: picture.left + 2, top: 0, right: picture.right - 2, bottom: frame.height });
    const { alpha } = await rvm.matte(shown);
    expect(alpha.reduce((sum, v) => sum + v, 0)).toBe((180 - 4) * 320);
    expect(alpha[100 * frame.width + picture.left + 1]).toBe(0);
    expect(alpha[100 * frame.width + picture.left + 2]).toBe(1);
    await rvm.close();
  });

  it('refuses an RVM opened at a size other than the picture', () => {
    const framing = pictureFraming(640, 360, PHONE_PICTURE, RVM_PROFILES.light);
    const whole = { width: 320, height: 180, ratio: 1 };
    const wrong = new RvmSession(brightnessMatter(whole, []));
    expect(() => new PictureRvm(wrong, framing, { ...whole, open: async () => wrong })).toThrow(/size other than the picture/);
  });

  it("`light` opens RVM at the picture's geometry where the video has bars, and at the frame's where it has none", async () => {
    const opened: RvmGeometry[] = [];
    const rvm = async (geometry: RvmGeometry) => {
      opened.push(geometry);
      return brightnessMatter(geometry, []);
    };
    const light = new LightModel({ rvm, detector: async () => ({}) as NanodetDetector });
    const barred = await light.createSession({ width: 640, height: 360, fps: 25, picture: PHONE_PICTURE });
    expect([barred.inputWidth, barred.inputHeight]).toEqual([570, 320]);
    const plain = await light.createSession({ width: 640, height: 360, fps: 25 });
    expect([plain.inputWidth, plain.inputHeight]).toEqual([320, 180]);
    expect(opened).toEqual([
      { width: 180, height: 320, ratio: 1, ...pipelinedAt() },
      { width: 320, height: 180, ratio: 1, ...pipelinedAt() },
    ]);
  });

  it('`human` frames the picture only where RVM gets more of its pixels: in 1280x720, not in 640x360 (the picture at its own pixels already)', async () => {
    const opened: string[] = [];
    const rvm = async (geometry: RvmGeometry) => {
      opened.push(`${geometry.width}x${geometry.height}`);
      return brightnessMatter(geometry, []);
    };
    const human = new HumanModel({ rvm, detector: async () => ({}) as NanodetDetector });
    const small = await human.createSession({ width: 640, height: 360, fps: 25, picture: PHONE_PICTURE });
    expect([small.inputWidth, small.inputHeight]).toEqual([640, 360]);
    // RVM and the small mirrored pass (light's size), at the frame's geometry
    expect(opened.splice(0)).toEqual(['640x360', '320x180']);
    const hd = await human.createSession({ width: 1280, height: 720, fps: 25, picture: PHONE_PICTURE });
    expect([hd.inputWidth, hd.inputHeight]).toEqual([1140, 640]);
    expect(opened).toEqual(['360x640', '180x320']);
  });
});
