import { binaryIou, MatteScorer, meanAbsoluteDifference, temporalDifferenceError } from '../../../src/engine/quality/metrics';

const u8 = (...values: number[]) => Uint8Array.from(values);

describe('matte metrics', () => {
  it('binarises at alpha 0.5 for the IoU', () => {
    expect(binaryIou(u8(255, 128, 127, 0), u8(255, 255, 255, 0))).toBeCloseTo(2 / 3);
    expect(binaryIou(u8(0, 0), u8(0, 0))).toBe(1);
    expect(binaryIou(u8(255, 0), u8(0, 255))).toBe(0);
  });

  it('measures the mean absolute difference in [0,1]', () => {
    expect(meanAbsoluteDifference(u8(255, 0), u8(0, 0))).toBeCloseTo(0.5);
    expect(meanAbsoluteDifference(u8(10, 20), u8(10, 20))).toBe(0);
  });

  it('counts only flicker that the truth does not have', () => {
    // the truth moves by 255 and so does the prediction: no error
    expect(temporalDifferenceError(u8(255), u8(0), u8(255), u8(0))).toBe(0);
    // the prediction flickers while the truth stands still
    expect(temporalDifferenceError(u8(255), u8(0), u8(0), u8(0))).toBeCloseTo(1);
  });

  it('rejects mattes of different sizes', () => {
    expect(() => binaryIou(u8(1, 2), u8(1))).toThrow(RangeError);
  });

  it('accumulates clip scores scaled x1e-3, and keeps each frame\'s IoU', () => {
    const scorer = new MatteScorer();
    scorer.addFrame(u8(255, 0), u8(255, 0));
    scorer.addFrame(u8(0, 0), u8(255, 0));
    const scores = scorer.scores();
    expect(scores.frames).toBe(2);
    expect(scores.iou).toBeCloseTo(0.5);
    expect(scores.mad).toBeCloseTo(250);
    expect(scores.dtssd).toBeCloseTo(500);
    expect(scorer.frameIous).toEqual([1, 0]);
  });
});
