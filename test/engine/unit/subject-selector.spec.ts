import { Box, boxArea, intersectionArea } from '../../../src/engine/models/pro/boxes';
import { figureExtents, labelRegions, regionKeepMask } from '../../../src/engine/models/pro/region-gate';
import { BACKGROUND_SIZE_SHARE, CHOOSE_RATIO, FEET_SHARE, INSIDE_SHARE, KEEP_RATIO, PEOPLE_FIRST_SHARE, rateObservations, SubjectSelector, TrackObservation } from '../../../src/engine/models/pro/subject-selector';

/** The main-subject rule on synthetic tracks: what a viewer would call the subject is chosen, and the choice holds. */
const box = (x0: number, y0: number, x1: number, y1: number): Box => ({ x0, y0, x1, y1 });
const observe = (id: number, b: Box, extra: Partial<TrackObservation> = {}): TrackObservation => ({ id, box: b, confidence: 0.8, focus: 1, motion: 1, ...extra });
const chosenIds = (selector: SubjectSelector) => [...selector.subjects].sort((a, b) => a - b);

/** a seated crowd: small, sharp-less, still people along the bottom edge and the sides */
const crowd = (firstId: number): TrackObservation[] =>
  [box(0, 0.7, 0.08, 0.95), box(0.1, 0.72, 0.18, 0.97), box(0.82, 0.7, 0.9, 0.95), box(0.92, 0.3, 1, 0.55)].map((b, i) => observe(firstId + i, b, { focus: 0.3, motion: 0.05, confidence: 0.7 }));

describe('SubjectSelector', () => {
  it('a dancer in front of a seated crowd comes out alone, on every keyframe', () => {
    const selector = new SubjectSelector();
    for (let k = 0; k < 12; k++) {
      const dancer = observe(1, box(0.35 + 0.01 * (k % 3), 0.2, 0.6, 0.9), { focus: 1, motion: 1, confidence: 0.75 });
      selector.update([dancer, ...crowd(10)]);
      expect(chosenIds(selector)).toEqual([1]);
    }
  });

  it('keeps two subjects that are about as prominent as each other', () => {
    const selector = new SubjectSelector();
    selector.update([observe(1, box(0.15, 0.2, 0.45, 0.95)), observe(2, box(0.55, 0.22, 0.83, 0.95), { focus: 0.9 }), ...crowd(10)]);
    expect(chosenIds(selector)).toEqual([1, 2]);
  });

  it('keeps someone walking in once they are as prominent as the subject, not before', () => {
    const selector = new SubjectSelector();
    const subject = observe(1, box(0.35, 0.2, 0.65, 0.95));
    for (let k = 0; k < 5; k++) selector.update([subject]);
    // enters small at the edge, then comes to the front beside the subject
    const walker = (k: number) => observe(2, box(0.85 - 0.03 * k, 0.5 - 0.05 * k, 1 - 0.02 * k, 0.8 + 0.02 * k), { motion: 1, focus: 0.4 + 0.1 * k });
    const chosenAt: boolean[] = [];
    for (let k = 0; k < 6; k++) chosenAt.push(selector.update([subject, walker(k)]).find((t) => t.id === 2)!.chosen);
    expect(chosenAt[0]).toBe(false);
    for (let k = 0; k < 8; k++) selector.update([subject, observe(2, box(0.65, 0.2, 0.95, 0.95))]);
    expect(chosenIds(selector)).toEqual([1, 2]);
  });

  it('holds a choice while its prominence dips (hysteresis), drops it below the keep ratio', () => {
    const selector = new SubjectSelector();
    const big = observe(1, box(0.3, 0.1, 0.7, 0.9));
    const second = (b: Box) => observe(2, b);
    selector.update([big, second(box(0.3, 0.1, 0.7, 0.9))]);
    expect(chosenIds(selector)).toEqual([1, 2]);
    // rated between the keep and choose ratios of the best: still chosen
    const between = box(0.05, 0.3, 0.3, 0.8);
    for (let k = 0; k < 10; k++) selector.update([big, second(between)]);
    const ratings = rateObservations([big, second(between)]);
    const ratio = ratings.get(2)! / ratings.get(1)!;
    expect(ratio).toBeGreaterThan(KEEP_RATIO);
    expect(ratio).toBeLessThan(CHOOSE_RATIO);
    expect(chosenIds(selector)).toEqual([1, 2]);
    // far smaller, out of focus, still and in a corner: dropped
    for (let k = 0; k < 10; k++) selector.update([big, second(box(0, 0, 0.08, 0.1))].map((o) => (o.id === 2 ? { ...o, focus: 0.1, motion: 0 } : o)));
    expect(chosenIds(selector)).toEqual([1]);
  });

  it('never chooses an unsure detection unless segmentation confirms it; forgets ended tracks', () => {
    const selector = new SubjectSelector();
    selector.update([observe(1, box(0.3, 0.1, 0.7, 0.9), { confidence: 0.4 }), observe(2, box(0.05, 0.6, 0.15, 0.9))]);
    expect(chosenIds(selector)).toEqual([2]);
    selector.update([observe(1, box(0.3, 0.1, 0.7, 0.9), { confidence: 0.4, supported: true }), observe(2, box(0.05, 0.6, 0.15, 0.9))]);
    // confirmed, the big central track is chosen; the small one, a tenth of its area, is background beside it
    expect(chosenIds(selector)).toEqual([1]);
    selector.update([observe(2, box(0.05, 0.6, 0.15, 0.9))]);
    expect(chosenIds(selector)).toEqual([2]);
  });

  it('a guess (a large box the detector is unsure of) does not set the scale: the people behind the subject stay out', () => {
    // bystanders.mp4: a pattern behind the subject taken for an umbrella at 0.35 made it the largest box
    const subject = observe(1, box(0.35, 0.38, 0.6, 1), { confidence: 0.46, supported: true, focus: 0.1, motion: 0.1 });
    const bystanders = [box(0.78, 0.76, 0.88, 1), box(0.11, 0.75, 0.21, 1)].map((b, i) => observe(2 + i, b, { confidence: 0.65, supported: true, focus: 0.1, motion: 0.1 }));
    const guess = observe(9, box(0.05, 0.02, 0.95, 0.95), { confidence: 0.35, focus: 0.1, motion: 0.1 });
    const selector = new SubjectSelector();
    for (let k = 0; k < 4; k++) selector.update([subject, ...bystanders]);
    for (let k = 0; k < 6; k++) {
      selector.update([subject, ...bystanders, guess]);
      expect(chosenIds(selector)).toEqual([1]);
    }
  });

  it('passers-by far smaller than the subject stay out, however sharp, central and busy they are', () => {
    // a person close to the camera, low in the frame and swaying; people walking about the middle distance behind
    const subject = observe(1, box(0.38, 0.45, 0.6, 1), { focus: 0.6, motion: 0.3 });
    const passersBy = [box(0.35, 0.3, 0.4, 0.55), box(0.47, 0.28, 0.52, 0.5), box(0.6, 0.35, 0.66, 0.6)].map((b, i) =>
      observe(2 + i, b, { focus: 1, motion: 1 }),
    );
    const selector = new SubjectSelector();
    for (let k = 0; k < 6; k++) {
      selector.update([subject, ...passersBy]);
      expect(chosenIds(selector)).toEqual([1]);
    }
    // the same people, as large as the subject, are chosen beside it
    const near = passersBy.map((o, i) => ({ ...o, box: box(0.05 + 0.3 * i, 0.45, 0.27 + 0.3 * i, 1) }));
    for (let k = 0; k < 6; k++) selector.update([subject, ...near]);
    expect(chosenIds(selector)).toEqual([1, 2, 3, 4]);
  });

  it('a box held through the detector\'s misses does not put the subject it outgrew in the background', () => {
    // DAVIS bmx-trees: a large person box, stale since the detector lost it, behind the small rider it found
    const stale = observe(1, box(0.34, 0.16, 0.74, 0.69), { held: true, focus: 0.5, motion: 0.5 });
    const rider = observe(6, box(0.3, 0.44, 0.42, 0.69));
    // its cues as they are, not scaled down: size 0.03 of the stale box's 0.212, centrality, focus, motion, confidence
    const centrality = 1 - Math.hypot(0.36 - 0.5, 0.565 - 0.5) / Math.SQRT1_2;
    const cues = 0.4 * ((0.12 * 0.25) / (0.4 * 0.53)) + 0.2 * centrality + 0.15 + 0.15 + 0.1 * 0.8;
    expect(rateObservations([stale, rider]).get(6)).toBeCloseTo(cues, 5);
    const selector = new SubjectSelector();
    for (let k = 0; k < 6; k++) selector.update([stale, rider]);
    expect(chosenIds(selector)).toContain(6);
    // found on this keyframe, the same large box does
    const found = new SubjectSelector();
    for (let k = 0; k < 6; k++) found.update([{ ...stale, held: false }, rider]);
    expect(chosenIds(found)).toEqual([1]);
  });

  it('a person comes before the vehicle behind them; a car with only its driver in sight stays the subject', () => {
    // a camera following a car past a person in front of it: the car rates above the person on every cue
    const car = observe(1, box(0.22, 0.37, 0.8, 0.76), { kind: 'vehicle', confidence: 0.64 });
    const person = observe(2, box(0.54, 0.11, 0.68, 0.64), { kind: 'person', confidence: 0.51, supported: true, focus: 0.6, motion: 0.6 });
    const ratings = rateObservations([car, person]);
    const share = ratings.get(2)! / ratings.get(1)!;
    expect(share).toBeGreaterThan(PEOPLE_FIRST_SHARE);
    expect(share).toBeLessThan(CHOOSE_RATIO);
    const selector = new SubjectSelector();
    for (let k = 0; k < 4; k++) {
      selector.update([car, person]);
      expect(chosenIds(selector)).toEqual([2]);
    }
    // the same two as anything else than a vehicle: the object is the subject, the person beside it rates too low
    const objects = new SubjectSelector();
    for (let k = 0; k < 4; k++) objects.update([{ ...car, kind: undefined }, person]);
    expect(chosenIds(objects)).toEqual([1]);
    // the driver, seen through the windscreen: inside the car's box, it does not take the car's place
    const driver = observe(3, box(0.5, 0.42, 0.62, 0.6), { kind: 'person', supported: true, confidence: 0.7 });
    const driven = new SubjectSelector();
    for (let k = 0; k < 4; k++) driven.update([car, driver]);
    expect(chosenIds(driven)).toEqual([1]);
    // someone standing before the car, their box inside its box too but reaching down to its wheels: they come first
    const standing = observe(5, box(0.45, 0.4, 0.65, 0.75), { kind: 'person', supported: true, confidence: 0.7 });
    const standingRatings = rateObservations([car, standing]);
    expect(standingRatings.get(5)! / standingRatings.get(1)!).toBeGreaterThan(PEOPLE_FIRST_SHARE);
    expect(intersectionArea(standing.box, car.box)).toBeGreaterThanOrEqual(INSIDE_SHARE * boxArea(standing.box));
    expect(standing.box.y1).toBeGreaterThan(car.box.y1 - FEET_SHARE * (car.box.y1 - car.box.y0));
    const passed = new SubjectSelector();
    for (let k = 0; k < 4; k++) passed.update([car, standing]);
    expect(chosenIds(passed)).toEqual([5]);
    // a person far smaller than the car, rating under half of it (a pedestrian far behind), neither
    const pedestrian = observe(4, box(0.02, 0.45, 0.05, 0.55), { kind: 'person', supported: true, confidence: 0.7, focus: 0.2, motion: 0.2 });
    const street = new SubjectSelector();
    for (let k = 0; k < 4; k++) street.update([car, pedestrian]);
    expect(chosenIds(street)).toEqual([1]);
  });

  it('an object whose box holds a person is the backdrop they stand before: the person is chosen, not the object', () => {
    // a busy backdrop taken for an umbrella at 0.54, its box over most of the frame around a person the detector scores 0.42
    const backdrop = observe(1, box(0.05, 0, 0.86, 0.94), { kind: 'object', confidence: 0.54, focus: 0.8, motion: 0.4 });
    const person = observe(2, box(0.45, 0.46, 0.64, 1), { kind: 'person', confidence: 0.42, supported: true, focus: 0.6, motion: 0.8 });
    const ratings = rateObservations([backdrop, person]);
    expect(ratings.get(2)! / ratings.get(1)!).toBeLessThan(KEEP_RATIO);
    const selector = new SubjectSelector();
    for (let k = 0; k < 4; k++) {
      selector.update([backdrop, person]);
      expect(chosenIds(selector)).toEqual([2]);
    }
    // a person the detector is unsure of and no segmentation confirms does not make it a backdrop
    const guessed = new SubjectSelector();
    for (let k = 0; k < 4; k++) guessed.update([backdrop, { ...person, supported: false }]);
    expect(chosenIds(guessed)).toEqual([1]);
    // nor does a person only partly inside its box, or a box of what people ride (a horse holding its rider)
    const beside = new SubjectSelector();
    for (let k = 0; k < 4; k++) beside.update([backdrop, { ...person, box: box(0.7, 0.46, 0.95, 1) }]);
    expect(chosenIds(beside)).toEqual([1]);
    const ridden = new SubjectSelector();
    for (let k = 0; k < 4; k++) ridden.update([{ ...backdrop, kind: undefined }, person]);
    expect(chosenIds(ridden)).toEqual([1]);
  });

  it('rates size, centrality, focus, motion and confidence with the documented weights', () => {
    const ratings = rateObservations([observe(1, box(0.25, 0.25, 0.75, 0.75), { confidence: 1 }), observe(2, box(0, 0, 0.25, 0.25), { focus: 0, motion: 0, confidence: 0 })]);
    expect(ratings.get(1)).toBeCloseTo(1, 5);
    // a quarter of the area (0.4 * 0.25), centre at (0.125, 0.125): centrality 1 - 0.53 / 0.707
    expect(ratings.get(2)).toBeCloseTo(0.4 * 0.25 + 0.2 * (1 - Math.hypot(0.375, 0.375) / Math.SQRT1_2), 5);
    // under a quarter of the largest area, the whole rating scales with the area's share over a quarter
    const small = rateObservations([observe(1, box(0.25, 0.25, 0.75, 0.75), { confidence: 1 }), observe(3, box(0.45, 0.45, 0.55, 0.55), { confidence: 1 })]);
    const centralSmall = 0.4 * 0.04 + 0.2 + 0.15 + 0.15 + 0.1;
    expect(small.get(3)).toBeCloseTo(centralSmall * (0.04 / BACKGROUND_SIZE_SHARE), 5);
  });
});

describe('region gate', () => {
  it('labels 8-connected regions', () => {
    const mask = Uint8Array.from([1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1]);
    const { sizes } = labelRegions(mask, 4, 4);
    // the diagonal pair is one region
    expect(sizes.slice(1).sort()).toEqual([1, 1, 2, 2]);
  });

  it("grows a box around part of a figure to the whole figure; a box already about it, or a figure mostly outside it, leaves it as it is", () => {
    const width = 200;
    const height = 100;
    const matte = new Float32Array(width * height);
    for (let y = 20; y < 90; y++) for (let x = 100; x < 120; x++) matte[y * width + x] = 1; // a person, x 0.5-0.6, y 0.2-0.9
    for (let y = 30; y < 60; y++) for (let x = 150; x < 170; x++) matte[y * width + x] = 1; // someone apart
    const extent = figureExtents(matte, width, height);
    // boxed from the head to the waist (what they carry hides the rest): the box takes in the legs
    const grown = extent(box(0.49, 0.19, 0.61, 0.55));
    expect(grown.y1).toBeCloseTo(0.9, 2);
    expect([grown.x0, grown.y0, grown.x1]).toEqual([0.49, 0.19, 0.61]);
    // a box about the whole figure, short of it by less than half its side, keeps its own edges
    expect(extent(box(0.51, 0.22, 0.59, 0.85))).toEqual(box(0.51, 0.22, 0.59, 0.85));
    // a box holding a corner of the other figure (under REGION_INSIDE_SHARE of it) does not take it in
    expect(extent(box(0.7, 0.5, 0.78, 0.7))).toEqual(box(0.7, 0.5, 0.78, 0.7));
  });

  it('keeps the regions lying in the subjects boxes and clears the others, soft edges kept', () => {
    const width = 200;
    const height = 100;
    const matte = new Float32Array(width * height);
    const fill = (x0: number, y0: number, x1: number, y1: number, v: number) => {
      for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) matte[y * width + x] = v;
    };
    fill(20, 20, 60, 90, 1); // the subject
    fill(60, 20, 62, 90, 0.4); // its soft edge
    fill(140, 30, 180, 80, 1); // someone apart
    const keep = regionKeepMask(matte, width, height, [box(0.08, 0.15, 0.32, 0.95)]);
    expect(keep[50 * width + 40]).toBe(1);
    expect(keep[50 * width + 61]).toBeGreaterThan(0.5);
    expect(keep[50 * width + 160]).toBe(0);
  });
});
