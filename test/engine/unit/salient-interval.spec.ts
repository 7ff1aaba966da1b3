import { SALIENT_INTERVALS, SalientInterval } from '../../../src/engine/models/temporal/salient-interval';
import { maskIou } from '../../../src/engine/quality/metrics';

describe("original: how often ISNet runs on a kept subject", () => {
  it('every 2nd frame for a rigid subject (agreement as DAVIS car-roundabout: 0.95-0.99)', () => {
    const interval = new SalientInterval();
    for (const agreement of [0.986, 0.979, 0.973, 0.954, 0.97]) interval.observe(agreement);
    expect(interval.frames).toBe(SALIENT_INTERVALS.rigid);
  });

  it('every frame once the subject changes shape (as DAVIS dog: 0.80-0.90), and back only once it agrees well again', () => {
    const interval = new SalientInterval();
    for (const agreement of [0.9, 0.883, 0.874]) interval.observe(agreement);
    expect(interval.frames).toBe(SALIENT_INTERVALS.deforming);
    interval.observe(0.94); // between the two thresholds: stays
    expect(interval.frames).toBe(SALIENT_INTERVALS.deforming);
    for (const agreement of [0.98, 0.98, 0.98]) interval.observe(agreement);
    expect(interval.frames).toBe(SALIENT_INTERVALS.rigid);
  });

  it('one odd keyframe of a rigid subject does not switch it, and reset() starts over', () => {
    const interval = new SalientInterval();
    for (const agreement of [0.98, 0.98, 0.98, 0.9]) interval.observe(agreement);
    expect(interval.frames).toBe(SALIENT_INTERVALS.rigid);
    interval.observe(0.5);
    expect(interval.frames).toBe(SALIENT_INTERVALS.deforming);
    interval.reset();
    expect(interval.frames).toBe(SALIENT_INTERVALS.rigid);
  });

  it('agreement is the IoU of the two planes at 0.5', () => {
    const a = Float32Array.from([1, 1, 0.6, 0, 0]);
    const b = Float32Array.from([1, 0.4, 1, 1, 0]);
    expect(maskIou(a, b, 0.5)).toBeCloseTo(2 / 4);
    expect(maskIou(new Float32Array(3), new Float32Array(3), 0.5)).toBe(1);
  });
});

describe('original: single odd keyframes', () => {
  it('one low agreement at the start (car-slide: 0.889, then 0.98) does not switch a rigid subject', () => {
    const interval = new SalientInterval();
    interval.observe(0.889);
    expect(interval.frames).toBe(SALIENT_INTERVALS.rigid);
    interval.observe(0.979);
    expect(interval.frames).toBe(SALIENT_INTERVALS.rigid);
  });

  it('nor does one keyframe where the subject leaves the frame (agreement 0)', () => {
    const interval = new SalientInterval();
    for (const agreement of [0.983, 0.942, 0]) interval.observe(agreement);
    expect(interval.frames).toBe(SALIENT_INTERVALS.rigid);
  });
});
