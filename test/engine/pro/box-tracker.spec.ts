import { BoxTracker, DEFAULT_TRACKER_OPTIONS } from '../../../src/engine/models/pro/box-tracker';
import { Box, translateBox } from '../../../src/engine/models/pro/boxes';
import { nonMaxSuppression } from '../../../src/engine/models/pro/nanodet-decode';
import { boxGate } from '../../../src/engine/models/pro/box-gate';

const PERSON = 0;
const CAR = 2;
const DOG = 16;
const box = (x0: number, y0: number, x1: number, y1: number): Box => ({ x0, y0, x1, y1 });

describe('BoxTracker', () => {
  it('keeps one identity for a subject that moves a little between keyframes', () => {
    const tracker = new BoxTracker();
    let b = box(0.1, 0.4, 0.3, 0.8);
    tracker.update([{ cls: CAR, score: 0.6, box: b }]);
    const id = tracker.tracks[0].id;
    for (let k = 0; k < 10; k++) {
      b = translateBox(b, 0.03, 0);
      tracker.update([{ cls: CAR, score: 0.3, box: b }]);
      expect(tracker.tracks.map((t) => t.id)).toEqual([id]);
    }
    expect(tracker.tracks[0].hits).toBe(11);
    expect(tracker.tracks[0].box.x0).toBeGreaterThan(0.3);
  });

  it('needs a confident detection to start a track, a weaker one to continue it', () => {
    const tracker = new BoxTracker();
    tracker.update([{ cls: PERSON, score: DEFAULT_TRACKER_OPTIONS.startScore - 0.01, box: box(0.4, 0.3, 0.6, 1) }]);
    expect(tracker.tracks).toHaveLength(0);
    tracker.update([{ cls: PERSON, score: 0.7, box: box(0.4, 0.3, 0.6, 1) }]);
    tracker.update([{ cls: PERSON, score: 0.15, box: box(0.41, 0.3, 0.61, 1) }]);
    expect(tracker.tracks).toHaveLength(1);
    expect(tracker.tracks[0].misses).toBe(0);
  });

  it('starts a track from the continuing score for a detection the segmentation confirms, not below it', () => {
    const { startScore, continueScore } = DEFAULT_TRACKER_OPTIONS;
    const tracker = new BoxTracker();
    const weak = { cls: PERSON, score: startScore - 0.02, box: box(0.4, 0.3, 0.6, 1) };
    const other = { cls: PERSON, score: startScore - 0.02, box: box(0.0, 0.3, 0.2, 1) };
    const faint = { cls: PERSON, score: continueScore - 0.01, box: box(0.7, 0.3, 0.9, 1) };
    tracker.update([weak, other, faint], new Set(), new Set([weak, faint]));
    expect(tracker.tracks.map((t) => t.box)).toEqual([weak.box]);
  });

  it('holds a missed track at full opacity, then fades it out and ends it', () => {
    const tracker = new BoxTracker();
    tracker.update([{ cls: PERSON, score: 0.8, box: box(0.4, 0.3, 0.6, 1) }]);
    const opacities: number[] = [];
    for (let k = 0; k < 6; k++) opacities.push(tracker.update([])[0]?.opacity ?? 0);
    const { fullHold, fadeHold } = DEFAULT_TRACKER_OPTIONS;
    expect(opacities.slice(0, fullHold)).toEqual(Array(fullHold).fill(1));
    const fading = opacities.slice(fullHold, fullHold + fadeHold);
    expect(fading.every((o, i) => o > 0 && o < 1 && (i === 0 || o < fading[i - 1]))).toBe(true);
    expect(opacities[fullHold + fadeHold]).toBe(0);
    expect(tracker.tracks).toHaveLength(0);
  });

  it('a missed track comes back with the same identity within the hold', () => {
    const tracker = new BoxTracker();
    tracker.update([{ cls: PERSON, score: 0.8, box: box(0.4, 0.3, 0.6, 1) }]);
    const id = tracker.tracks[0].id;
    tracker.update([]);
    tracker.update([]);
    tracker.update([{ cls: PERSON, score: 0.5, box: box(0.42, 0.3, 0.62, 1) }]);
    expect(tracker.tracks.map((t) => [t.id, t.opacity])).toEqual([[id, 1]]);
  });

  it('holds longer while segmentation still sees the subject, up to its limit', () => {
    const tracker = new BoxTracker();
    tracker.update([{ cls: CAR, score: 0.8, box: box(0.6, 0.5, 0.95, 0.8) }]);
    const id = tracker.tracks[0].id;
    for (let k = 0; k < DEFAULT_TRACKER_OPTIONS.supportedHold; k++) {
      tracker.update([], new Set([id]));
      expect(tracker.tracks[0]?.opacity).toBe(1);
    }
    tracker.update([], new Set([id]));
    expect(tracker.tracks).toHaveLength(0);
  });

  it('keeps two subjects apart and matches each detection to its own class', () => {
    const tracker = new BoxTracker();
    tracker.update([
      { cls: PERSON, score: 0.6, box: box(0.1, 0.2, 0.3, 1) },
      { cls: CAR, score: 0.6, box: box(0.12, 0.5, 0.5, 0.9) },
    ]);
    const [person, car] = tracker.tracks.map((t) => t.id);
    tracker.update([
      { cls: CAR, score: 0.4, box: box(0.15, 0.5, 0.53, 0.9) },
      { cls: PERSON, score: 0.4, box: box(0.11, 0.2, 0.31, 1) },
    ]);
    expect(tracker.tracks.map((t) => [t.id, t.cls, t.misses])).toEqual([
      [person, PERSON, 0],
      [car, CAR, 0],
    ]);
  });

  it('of two boxes of its class on a track, takes the one that is both confident and overlapping, not the loosest fit', () => {
    // the two-dogs composite, keyframe 12: the dog alone (0.30) and the dog with the car behind it (0.10)
    const tracker = new BoxTracker();
    tracker.update([{ cls: DOG, score: 0.5, box: box(0.03, 0.35, 0.32, 0.81) }]);
    const tight = box(0.09, 0.28, 0.32, 0.78);
    tracker.update([
      { cls: DOG, score: 0.1, box: box(0.03, 0.37, 0.33, 0.93) },
      { cls: DOG, score: 0.3, box: tight },
    ]);
    const { boxResponse } = DEFAULT_TRACKER_OPTIONS;
    expect(tracker.tracks).toHaveLength(1);
    expect(tracker.tracks[0].box.x0).toBeCloseTo(boxResponse * tight.x0 + (1 - boxResponse) * 0.03, 6);
    expect(tracker.tracks[0].box.y1).toBeCloseTo(boxResponse * tight.y1 + (1 - boxResponse) * 0.81, 6);
  });

  it("restores another tracker's tracks as copies, and tracks on from them", () => {
    const first = new BoxTracker();
    first.update([{ cls: DOG, score: 0.6, box: box(0.1, 0.3, 0.4, 0.8) }]);
    const second = new BoxTracker();
    second.restore(first.tracks);
    expect(second.tracks).toEqual(first.tracks);
    second.move(second.tracks[0].id, box(0.2, 0.3, 0.5, 0.8));
    expect(first.tracks[0].box.x0).toBe(0.1);
    second.update([{ cls: DOG, score: 0.6, box: box(0.21, 0.3, 0.51, 0.8) }]);
    expect(second.tracks.map((t) => [t.id, t.hits])).toEqual([[first.tracks[0].id, 2]]);
  });

  describe('given frame numbers (keyframes 8 frames apart)', () => {
    // a small person walking across the frame: their box 0.04 wide, 0.03 further on each keyframe
    const walker = (k: number) => box(0.3 + 0.03 * k, 0.3, 0.34 + 0.03 * k, 0.5);

    it('keeps one identity for a small person who moves out of their last box between keyframes', () => {
      const tracker = new BoxTracker();
      tracker.update([{ cls: PERSON, score: 0.8, box: walker(0) }], new Set(), new Set(), 0);
      const id = tracker.tracks[0].id;
      for (let k = 1; k <= 6; k++) {
        tracker.update([{ cls: PERSON, score: 0.8, box: walker(k) }], new Set(), new Set(), 8 * k);
        expect(tracker.tracks.map((t) => [t.id, t.misses])).toEqual([[id, 0]]);
      }
      // predicted with its motion, the box is where the person is, not 30% behind
      expect(tracker.tracks[0].box.x0).toBeCloseTo(walker(6).x0, 2);
    });

    it('without them, takes the same walker for someone new on every keyframe', () => {
      const tracker = new BoxTracker();
      for (let k = 0; k <= 2; k++) tracker.update([{ cls: PERSON, score: 0.8, box: walker(k) }]);
      expect(tracker.tracks.filter((t) => t.misses === 0).map((t) => t.hits)).toEqual([1]);
      expect(tracker.tracks).toHaveLength(3);
    });

    it('still finds a person who stops; follows only sure detections through motion, and a new track only around its box', () => {
      const tracker = new BoxTracker();
      for (let k = 0; k <= 3; k++) tracker.update([{ cls: PERSON, score: 0.8, box: walker(k) }], new Set(), new Set(), 8 * k);
      const id = tracker.tracks[0].id;
      tracker.update([{ cls: PERSON, score: 0.8, box: walker(3) }], new Set(), new Set(), 32);
      expect(tracker.tracks.map((t) => [t.id, t.misses])).toEqual([[id, 0]]);

      // a detection the detector is unsure of is not followed through motion: it is someone else
      const unsure = new BoxTracker();
      unsure.update([{ cls: PERSON, score: 0.8, box: walker(0) }], new Set(), new Set(), 0);
      unsure.update([{ cls: PERSON, score: 0.45, box: walker(1) }], new Set(), new Set(), 8);
      expect(unsure.tracks.map((t) => t.misses)).toEqual([1, 0]);

      const fresh = new BoxTracker();
      fresh.update([{ cls: PERSON, score: 0.8, box: walker(0) }], new Set(), new Set(), 0);
      // two box widths on: another person, not the first one moved
      fresh.update([{ cls: PERSON, score: 0.8, box: translateBox(walker(0), 0.08, 0) }], new Set(), new Set(), 8);
      expect(fresh.tracks.map((t) => t.misses)).toEqual([1, 0]);
    });

    it('matches a subject that swings back where its last box finds it, before anyone its motion runs into', () => {
      const tracker = new BoxTracker();
      const swinger = (x0: number) => box(x0, 0.2, x0 + 0.2, 0.9);
      for (let k = 0; k <= 3; k++) tracker.update([{ cls: PERSON, score: 0.8, box: swinger(0.4 - 0.06 * k) }], new Set(), new Set(), 8 * k);
      const id = tracker.tracks[0].id;
      // she swings back to the right; a rider passes on the left, where her motion would have taken her
      const back = swinger(0.32);
      const rider = { cls: PERSON, score: 0.9, box: swinger(0.1) };
      tracker.update([rider, { cls: PERSON, score: 0.6, box: back }], new Set(), new Set(), 32);
      const her = tracker.tracks.find((t) => t.id === id)!;
      expect(her.misses).toBe(0);
      expect(her.box.x0).toBeGreaterThan(0.25);
    });
  });

  it('does not start a second track on a second box of a tracked subject', () => {
    const tracker = new BoxTracker();
    tracker.update([
      { cls: PERSON, score: 0.7, box: box(0.4, 0.3, 0.6, 1) },
      { cls: PERSON, score: 0.5, box: box(0.42, 0.35, 0.6, 0.95) },
    ]);
    expect(tracker.tracks).toHaveLength(1);
  });
});

describe('detections and gates', () => {
  it('NMS keeps the best box per object and class', () => {
    const kept = nonMaxSuppression(
      [
        { cls: CAR, score: 0.5, box: box(0, 0, 10, 10) },
        { cls: CAR, score: 0.7, box: box(1, 1, 11, 11) },
        { cls: PERSON, score: 0.4, box: box(1, 1, 11, 11) },
        { cls: CAR, score: 0.3, box: box(50, 50, 60, 60) },
      ],
      0.5,
      10,
    );
    expect(kept.map((d) => [d.cls, d.score])).toEqual([
      [CAR, 0.7],
      [PERSON, 0.4],
      [CAR, 0.3],
    ]);
  });

  it('a box gate is 1 inside the grown box and falls to 0 beyond the feather', () => {
    const size = 100;
    const gate = boxGate(box(0.4, 0.4, 0.6, 0.6), size, size, { margin: 0.1, minMargin: 0, feather: 0.05 });
    const at = (x: number, y: number) => gate[y * size + x];
    expect(at(50, 50)).toBe(1);
    expect(at(38, 50)).toBe(1); // inside the 10% margin (0.38..0.62)
    expect(at(35, 50)).toBeGreaterThan(0);
    expect(at(35, 50)).toBeLessThan(1);
    expect(at(30, 50)).toBe(0);
    expect(at(50, 90)).toBe(0);
  });
});
