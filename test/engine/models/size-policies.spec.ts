import { humanWorkingSize } from '../../../src/engine/models/human/human-model';
import { downscaledSize } from '../../../src/engine/models/isnet/isnet-graph';
import { isnetInputSizeFor } from '../../../src/engine/models/isnet/isnet-segmenter';
import { originalInputSize } from '../../../src/engine/models/original/original-model';
import { RVM_PROFILES, rvmGeometryFor } from '../../../src/engine/models/rvm/rvm-geometry';
import { selfieInputSizeFor } from '../../../src/engine/models/selfie/selfie-size';

describe('input size policies', () => {
  it('feeds the selfie model the video aspect with a 256 short side (multiples of 16)', () => {
    expect(selfieInputSizeFor(640, 360)).toEqual({ width: 448, height: 256 });
    expect(selfieInputSizeFor(1080, 1920)).toEqual({ width: 256, height: 448 });
    expect(selfieInputSizeFor(512, 512)).toEqual({ width: 256, height: 256 });
    expect(selfieInputSizeFor(4000, 500)).toEqual({ width: 512, height: 256 });
  });

  it('feeds ISNet its 1024 square', () => {
    expect(isnetInputSizeFor(640, 360)).toEqual({ width: 1024, height: 1024 });
  });

  it("decodes original's frames at the video's size, at most ISNet's on each axis (ISNet scales them in its graph)", () => {
    const isnet = { width: 1024, height: 1024 };
    expect(originalInputSize({ width: 640, height: 360 }, isnet)).toEqual({ width: 640, height: 360 });
    expect(originalInputSize({ width: 1920, height: 1080 }, isnet)).toEqual({ width: 1024, height: 1024 });
    expect(originalInputSize({ width: 1024, height: 1025 }, isnet)).toEqual({ width: 1024, height: 1024 });
    expect(originalInputSize({ width: 2000, height: 500 }, isnet)).toEqual({ width: 1024, height: 500 });
  });

  it('follows ISNet feature-map sizes with ceil-mode halving', () => {
    expect(downscaledSize(512, 1)).toBe(256);
    expect(downscaledSize(360, 3)).toBe(45);
    expect(downscaledSize(360, 4)).toBe(23);
  });

  it('works on human at most 640 on the long side, even sizes', () => {
    expect(humanWorkingSize(1920, 1080)).toEqual({ width: 640, height: 360 });
    expect(humanWorkingSize(320, 241)).toEqual({ width: 320, height: 242 });
    expect(humanWorkingSize(1080, 1920)).toEqual({ width: 360, height: 640 });
    expect(humanWorkingSize(1080, 1080)).toEqual({ width: 640, height: 640 });
  });

  it("gives frames wider than 16:9 a 16:9 frame's pixels, never more than the video's, the encoder sized alike", () => {
    expect(humanWorkingSize(1920, 804)).toEqual({ width: 742, height: 310 });
    expect(humanWorkingSize(804, 1920)).toEqual({ width: 310, height: 742 });
    expect(humanWorkingSize(640, 268)).toEqual({ width: 640, height: 268 });
    expect(rvmGeometryFor(640, 268, RVM_PROFILES.light)).toEqual({ width: 370, height: 156, ratio: 1 });
    expect(rvmGeometryFor(1920, 804, RVM_PROFILES.human)).toEqual({ width: 742, height: 310, ratio: 1 });
    expect(rvmGeometryFor(1920, 804, { inputLongSide: 640, encoderLongSide: 320 })).toEqual({ width: 742, height: 310, ratio: 0.5 });
  });
});
