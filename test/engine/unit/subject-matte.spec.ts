import { peopleMatte, salientNeeds, subjectMatte } from '../../../src/engine/models/original/subject-matte';
import { Track } from '../../../src/engine/models/pro/box-tracker';
import { Box, translateBox } from '../../../src/engine/models/pro/boxes';
import { KEYFRAME_INTERVAL, MainSubjectFinder, MainSubjects, peopleRvmFills, samePersonAgain, SETTLING_KEYFRAMES } from '../../../src/engine/models/pro/main-subjects';
import { NanodetDetector } from '../../../src/engine/models/pro/nanodet-detector';
import { distinctObjects, TrackChooser } from '../../../src/engine/models/pro/track-chooser';
import { classIndex } from '../../../src/engine/models/pro/vocabulary';

/** How `original` builds its matte from RVM, ISNet and the chosen subjects, on synthetic planes. */
const W = 160;
const H = 90;
const PERSON = classIndex('person');
const BICYCLE = classIndex('bicycle');
const DOG = classIndex('dog');
const CAR = classIndex('car');

const box = (x0: number, y0: number, x1: number, y1: number): Box => ({ x0, y0, x1, y1 });
let nextId = 1;
const track = (cls: number, b: Box, bestScore = 0.8): Track => ({ id: nextId++, cls, box: b, bestScore, hits: 3, misses: 0, unsupportedMisses: 0, opacity: 1 });

function plane(...rects: Box[]): Float32Array {
  const out = new Float32Array(W * H);
  for (const r of rects) for (let y = Math.floor(r.y0 * H); y < Math.ceil(r.y1 * H); y++) for (let x = Math.floor(r.x0 * W); x < Math.ceil(r.x1 * W); x++) out[y * W + x] = 1;
  return out;
}

const at = (matte: Float32Array, x: number, y: number) => matte[Math.floor(y * H) * W + Math.floor(x * W)];
const subjects = (chosen: Track[], attached: Track[] = []): MainSubjects => ({ chosen, attached, all: [...chosen, ...attached] });

describe('original: the subject matte', () => {
  const dancer = box(0.4, 0.2, 0.6, 0.9);
  const spectator = box(0.05, 0.5, 0.15, 0.9);

  it("a chosen person takes RVM's matte; a person not chosen is cleared; ISNet's background is not used", () => {
    const people = plane(dancer, spectator);
    const salient = plane(box(0.7, 0.1, 0.95, 0.4));
    const matte = subjectMatte({ width: W, height: H, people, salient }, subjects([track(PERSON, dancer)]));
    expect(at(matte, 0.5, 0.5)).toBe(1);
    expect(at(matte, 0.1, 0.7)).toBe(0);
    expect(at(matte, 0.8, 0.2)).toBe(0);
  });

  it("a chosen person who left their keyframe box keeps RVM's matte where it continues the previous frame's; a spectator stays cleared", () => {
    const before = box(0.42, 0.2, 0.62, 0.9);
    const now = box(0.5, 0.2, 0.7, 0.9);
    const staleBox = box(0.3, 0.2, 0.45, 0.9);
    // a second chosen person, larger: `now` is then no larger region that no box explains
    const partner = box(0.75, 0.05, 0.98, 0.95);
    const planes = { width: W, height: H, people: plane(now, spectator, partner), salient: plane() };
    const chosen = subjects([track(PERSON, staleBox), track(PERSON, partner)]);
    const withoutHistory = subjectMatte(planes, chosen);
    expect(at(withoutHistory, 0.65, 0.5)).toBe(0);
    expect(at(withoutHistory, 0.85, 0.5)).toBe(1);
    const matte = subjectMatte({ ...planes, previous: plane(before) }, chosen);
    expect(at(matte, 0.65, 0.5)).toBe(1);
    expect(at(matte, 0.1, 0.7)).toBe(0);
  });

  it('a person chosen once and then dropped is cleared, though their region continues the previous frame\'s matte', () => {
    const planes = { width: W, height: H, people: plane(dancer, spectator), salient: plane(), previous: plane(dancer, spectator) };
    const dancerTrack = track(PERSON, dancer);
    const spectatorTrack = track(PERSON, spectator);
    const matte = subjectMatte(planes, { chosen: [dancerTrack], attached: [], all: [dancerTrack, spectatorTrack] });
    expect(at(matte, 0.5, 0.5)).toBe(1);
    expect(at(matte, 0.1, 0.7)).toBe(0);
    // with no box of theirs the previous frame still vouches for the region (a skater between keyframes)
    expect(at(subjectMatte(planes, subjects([dancerTrack])), 0.1, 0.7)).toBe(1);
  });

  it("a chosen person moving into the held box of someone not chosen (missed by the detector on its last keyframe) keeps RVM's matte where it continues the previous frame's", () => {
    const staleBox = box(0.3, 0.2, 0.45, 0.9);
    const planes = { width: W, height: H, people: plane(box(0.5, 0.2, 0.7, 0.9)), salient: plane(), previous: plane(box(0.42, 0.2, 0.62, 0.9)) };
    const subject = track(PERSON, staleBox);
    const figure = (misses: number) => ({ ...track(PERSON, box(0.52, 0.1, 0.8, 0.95), 0.47), misses });
    const matteBeside = (other: Track) => subjectMatte(planes, { chosen: [subject], attached: [], all: [subject, other] });
    expect(at(matteBeside(figure(1)), 0.6, 0.5)).toBe(1);
    // where the detector found that person on the keyframe, the region in their box is theirs
    expect(at(matteBeside(figure(0)), 0.6, 0.5)).toBe(0);
  });

  it('a rider keeps the bike under them (attached), from ISNet', () => {
    const rider = box(0.4, 0.1, 0.6, 0.6);
    const bike = box(0.35, 0.45, 0.65, 0.9);
    const matte = subjectMatte({ width: W, height: H, people: plane(rider), salient: plane(bike) }, subjects([track(PERSON, rider)], [track(BICYCLE, bike)]));
    expect(at(matte, 0.5, 0.3)).toBe(1);
    expect(at(matte, 0.5, 0.8)).toBe(1);
  });

  it('a chosen animal comes from ISNet alone', () => {
    const dog = box(0.2, 0.3, 0.7, 0.8);
    const matte = subjectMatte({ width: W, height: H, people: plane(), salient: plane(dog, box(0.85, 0.05, 0.95, 0.2)) }, subjects([track(DOG, dog)]));
    expect(at(matte, 0.45, 0.55)).toBe(1);
    expect(at(matte, 0.9, 0.1)).toBe(0);
  });

  it("with no subject chosen yet: the people RVM sees, else ISNet's salient object", () => {
    const salient = plane(box(0.1, 0.1, 0.3, 0.3));
    const withPeople = subjectMatte({ width: W, height: H, people: plane(dancer), salient }, subjects([]));
    expect(at(withPeople, 0.5, 0.5)).toBe(1);
    expect(at(withPeople, 0.2, 0.2)).toBe(0);
    const without = subjectMatte({ width: W, height: H, people: plane(), salient }, subjects([]));
    expect(at(without, 0.2, 0.2)).toBe(1);
  });
});

describe('human: the people matte', () => {
  const dancer = box(0.4, 0.2, 0.6, 0.9);
  const spectator = box(0.05, 0.5, 0.15, 0.9);

  it('keeps the chosen person and clears the spectator RVM also sees', () => {
    const dancerTrack = track(PERSON, dancer);
    const matte = peopleMatte({ width: W, height: H, people: plane(dancer, spectator) }, { chosen: [dancerTrack], attached: [], all: [dancerTrack, track(PERSON, spectator)] });
    expect(at(matte, 0.5, 0.5)).toBe(1);
    expect(at(matte, 0.1, 0.7)).toBe(0);
  });

  /** `human` and `original` (with no ISNet plane to add) keep people the same way */
  const mattes = {
    human: (people: Float32Array, chosen: MainSubjects, previous?: Float32Array) => peopleMatte({ width: W, height: H, people, previous }, chosen),
    original: (people: Float32Array, chosen: MainSubjects, previous?: Float32Array) => subjectMatte({ width: W, height: H, people, salient: plane(), previous }, chosen),
  };

  it.each(Object.entries(mattes))("%s keeps a larger person no box explains (the detector missed the subject and chose a bystander); not one in a bystander's box", (_model, matteOf) => {
    const subject = box(0.35, 0.1, 0.65, 0.95);
    const bystanderTrack = track(PERSON, spectator);
    const missed = matteOf(plane(subject, spectator), { chosen: [bystanderTrack], attached: [], all: [bystanderTrack] });
    expect(at(missed, 0.5, 0.5)).toBe(1);
    const other = track(PERSON, box(0.8, 0.5, 0.95, 0.9));
    const explained = matteOf(plane(subject, box(0.8, 0.5, 0.95, 0.9)), { chosen: [track(PERSON, subject)], attached: [], all: [other] });
    expect(at(explained, 0.5, 0.5)).toBe(1);
    expect(at(explained, 0.87, 0.7)).toBe(0);
    const smaller = matteOf(plane(dancer, box(0.8, 0.7, 0.85, 0.9)), subjects([track(PERSON, dancer)]));
    expect(at(smaller, 0.82, 0.8)).toBe(0);
  });

  it.each(Object.entries(mattes))('%s does not take a larger region at the frame\'s left or right edge for a missed subject: it may be coming in (a car RVM takes for a person)', (_model, matteOf) => {
    const person = box(0.4, 0.3, 0.55, 0.95);
    const chosen = subjects([track(PERSON, person)]);
    for (const comingIn of [box(0.75, 0.2, 1, 1), box(0, 0.2, 0.25, 1)]) {
      const matte = matteOf(plane(person, comingIn), chosen);
      expect(at(matte, 0.47, 0.6)).toBe(1);
      expect(at(matte, (comingIn.x0 + comingIn.x1) / 2, 0.6)).toBe(0);
    }
    expect(at(matteOf(plane(person, box(0.7, 0.2, 0.95, 1)), chosen), 0.82, 0.6)).toBe(1);
  });

  it.each(Object.entries(mattes))('%s does not carry over from the previous frame a region in the box of a car the detector is sure of, apart from the chosen people', (_model, matteWithPrevious) => {
    const person = box(0.2, 0.1, 0.4, 0.95);
    // RVM takes a red car driving in at the frame's edge for a person; the previous matte kept it
    const carAtEdge = box(0.85, 0.5, 1, 1);
    const matteOf = (car: Track) => {
      const chosen = track(PERSON, person);
      return matteWithPrevious(plane(person, carAtEdge), { chosen: [chosen], attached: [], all: [chosen, car] }, plane(person, carAtEdge));
    };
    const sure = matteOf(track(CAR, carAtEdge, 0.73));
    expect(at(sure, 0.3, 0.5)).toBe(1);
    expect(at(sure, 0.92, 0.8)).toBe(0);
    // a car the detector is unsure of may be what it takes a person for; a person before a car stands in its box
    expect(at(matteOf(track(CAR, carAtEdge, 0.4)), 0.92, 0.8)).toBe(1);
    expect(at(matteOf(track(CAR, box(0.35, 0.4, 1, 1), 0.73)), 0.92, 0.8)).toBe(1);
  });

  it.each(Object.entries(mattes))("%s keeps a chosen person passing before a sure car while their box lags behind them: they stand out of the car's box", (_model, matteOf) => {
    // DAVIS rollerblade's skater laid over car-roundabout: her box is the last keyframe's, the car's box holds most of her now
    const keyframeBox = box(0.1, 0.2, 0.22, 0.75);
    const car = track(CAR, box(0.25, 0.36, 0.8, 0.74), 0.74);
    const chosen = track(PERSON, keyframeBox);
    const matte = matteOf(plane(box(0.3, 0.28, 0.4, 0.76)), { chosen: [chosen], attached: [], all: [chosen, car] }, plane(box(0.29, 0.28, 0.39, 0.76)));
    expect(at(matte, 0.35, 0.5)).toBe(1);
    expect(at(matte, 0.35, 0.3)).toBe(1);
  });

  it('with no person chosen yet (the detector misses odd poses), keeps every person RVM sees, never an empty matte', () => {
    const people = plane(dancer, spectator);
    expect(peopleMatte({ width: W, height: H, people }, subjects([]))).toBe(people);
    expect(peopleMatte({ width: W, height: H, people }, subjects([track(DOG, dancer)]))).toBe(people);
  });
});

describe('original: when ISNet runs, and on what', () => {
  const rider = box(0.4, 0.1, 0.5, 0.5);
  const bike = box(0.38, 0.4, 0.52, 0.6);

  it('people alone come from RVM: ISNet is not run', () => {
    expect(salientNeeds(subjects([track(PERSON, rider)]), plane(rider)).read).toBe(false);
  });

  it('a person with an object and others in sight: ISNet sees the region around the two, not the whole frame', () => {
    const chosen = subjects([track(PERSON, rider)], [track(BICYCLE, bike)]);
    const needs = salientNeeds({ ...chosen, all: [...chosen.all, track(PERSON, box(0.8, 0.3, 0.95, 0.9))] }, plane(rider));
    expect(needs.read).toBe(true);
    expect(needs.region!.x0).toBeLessThanOrEqual(0.38);
    expect(needs.region!.y1).toBeGreaterThanOrEqual(0.6);
    expect((needs.region!.x1 - needs.region!.x0) * (needs.region!.y1 - needs.region!.y0)).toBeLessThan(0.5);
  });

  it('a person with an object and nothing else in sight: ISNet sees the whole frame (more context)', () => {
    expect(salientNeeds(subjects([track(PERSON, rider)], [track(BICYCLE, bike)]), plane(rider))).toEqual({ read: true, region: undefined });
  });

  it('no subject and no people in sight: ISNet on the whole frame', () => {
    expect(salientNeeds(subjects([]), plane())).toEqual({ read: true });
    expect(salientNeeds(subjects([]), plane(rider)).read).toBe(false);
  });
});

describe('TrackChooser', () => {
  it('a box of another class over a person is that person again; one beside them is not', () => {
    const person = track(PERSON, box(0.3, 0.2, 0.6, 0.9));
    const sameDog = track(DOG, box(0.31, 0.22, 0.6, 0.88));
    const realDog = track(DOG, box(0.6, 0.6, 0.8, 0.9));
    expect(distinctObjects([person, sameDog, realDog]).map((t) => t.id)).toEqual([person.id, realDog.id]);
  });

  it('on real pixels: a sharp, moving subject in the middle is chosen over blurred still people at the edges', () => {
    const chooser = new TrackChooser();
    const subject = track(PERSON, box(0.35, 0.15, 0.65, 0.95));
    const crowd = [track(PERSON, box(0, 0.6, 0.12, 1)), track(PERSON, box(0.88, 0.6, 1, 1))];
    let chosen = new Set<number>();
    for (let k = 0; k < 6; k++) {
      const rgb = new Uint8Array(W * H * 3).fill(100);
      for (let y = 0; y < H; y++) {
        for (let x = 0; x < W; x++) {
          const u = x / W;
          const v = y / H;
          // a checkerboard that moves with k inside the subject; flat grey over the crowd
          if (u > 0.35 && u < 0.65 && v > 0.15) rgb.fill(((x + k) >> 1) % 2 === (y >> 1) % 2 ? 230 : 20, 3 * (y * W + x), 3 * (y * W + x) + 3);
          else if ((u < 0.12 || u > 0.88) && v > 0.6) rgb.fill(140, 3 * (y * W + x), 3 * (y * W + x) + 3);
        }
      }
      chosen = chooser.choose(rgb, W, H, [subject, ...crowd]);
    }
    expect([...chosen]).toEqual([subject.id]);
  });

  it("a person the detector boxed in part (a board they carry hides their legs) is rated on RVM's whole figure, and comes before the car behind them", () => {
    const grey = new Uint8Array(W * H * 3).fill(120);
    // DAVIS kite-walk's person laid over DAVIS car-roundabout: NanoDet boxes them from the helmet to the board
    const car = track(classIndex('car'), box(0.23, 0.36, 0.79, 0.74), 0.63);
    const person = track(PERSON, box(0.6, 0.21, 0.71, 0.55), 0.56);
    const figure = plane(box(0.61, 0.2, 0.7, 0.78));
    const chooser = new TrackChooser();
    for (let k = 0; k < 4; k++) expect([...chooser.choose(grey, W, H, [car, person], figure)]).toEqual([person.id]);
    // rated on the box alone, the person falls under half the car's prominence and the car is the subject
    const boxOnly = new TrackChooser();
    for (let k = 0; k < 4; k++) expect([...boxOnly.choose(grey, W, H, [car, person], plane(person.box))]).toEqual([car.id]);
  });

  it("a person whose box RVM's matte has filled stays confirmed while their track lives; a loose box that only held the matte does not", () => {
    const grey = new Uint8Array(W * H * 3).fill(120);
    const nobody = new Float32Array(W * H);
    // the detector is unsure of a fast skater (0.4): RVM's matte fills their box on one keyframe...
    const skater = track(PERSON, box(0.4, 0.2, 0.6, 0.9), 0.4);
    const chooser = new TrackChooser();
    expect([...chooser.choose(grey, W, H, [skater], plane(skater.box))]).toEqual([skater.id]);
    // ...and lies beside the predicted box on the next (the skater outran it): still the subject
    expect([...chooser.choose(grey, W, H, [skater], plane(box(0.75, 0.2, 0.95, 0.9)))]).toEqual([skater.id]);
    expect([...chooser.choose(grey, W, H, [skater], nobody)]).toEqual([skater.id]);
    // a loose box over half the frame holding a small person's matte: confirmed on that keyframe alone
    const loose = track(PERSON, box(0, 0, 0.5, 0.8), 0.38);
    const looseChooser = new TrackChooser();
    expect([...looseChooser.choose(grey, W, H, [loose], plane(box(0.2, 0.3, 0.28, 0.7)))]).toEqual([loose.id]);
    expect([...looseChooser.choose(grey, W, H, [loose], nobody)]).toEqual([]);
  });
});

describe('MainSubjectFinder: a person under a second label', () => {
  const person = track(PERSON, box(0.3, 0.2, 0.6, 0.95));
  const detection = (cls: number, b: Box, score = 0.5) => ({ cls, box: b, score });

  it('a box of another class over a person whom no person box continues is that person again', () => {
    const asDog = detection(DOG, box(0.31, 0.22, 0.6, 0.93));
    expect(samePersonAgain([asDog], [person]).map((d) => d.cls)).toEqual([PERSON]);
  });

  it('where the person is also detected, or the box lies apart, the other class stays', () => {
    const bike = detection(BICYCLE, box(0.31, 0.22, 0.6, 0.93));
    expect(samePersonAgain([detection(PERSON, box(0.3, 0.21, 0.6, 0.95)), bike], [person]).map((d) => d.cls)).toEqual([PERSON, BICYCLE]);
    expect(samePersonAgain([detection(DOG, box(0.65, 0.6, 0.9, 0.95))], [person]).map((d) => d.cls)).toEqual([DOG]);
  });
});

describe('MainSubjectFinder: a box that RVM fills is a person', () => {
  const detection = (cls: number, b: Box, score = 0.5) => ({ cls, box: b, score });
  const TEDDY_BEAR = classIndex('teddy bear');
  const personFromBehind = box(0.3, 0.2, 0.6, 0.95);

  it("a teddy bear (NanoDet's name for a person seen from behind) that RVM's matte fills becomes a person", () => {
    const people = plane(box(0.32, 0.22, 0.58, 0.95));
    expect(peopleRvmFills([detection(TEDDY_BEAR, personFromBehind), detection(DOG, box(0.7, 0.6, 0.95, 0.95))], people, W, H).map((d) => d.cls)).toEqual([PERSON, DOG]);
  });

  it('a box RVM leaves empty, or fills only in part, or what a rider rides, keeps its class', () => {
    const rider = box(0.3, 0.2, 0.6, 0.7);
    const people = plane(rider);
    const bike = detection(BICYCLE, box(0.3, 0.5, 0.6, 0.95));
    const dogAtFeet = detection(DOG, box(0.5, 0.55, 0.8, 0.95));
    expect(peopleRvmFills([bike, dogAtFeet, detection(DOG, box(0.7, 0.1, 0.95, 0.4))], people, W, H).map((d) => d.cls)).toEqual([BICYCLE, DOG, DOG]);
  });

  it('a class NanoDet does not mistake people for stays, however much RVM fills it (its specks on a red car)', () => {
    const car = box(0.7, 0.4, 1, 1);
    expect(peopleRvmFills([detection(classIndex('car'), car)], plane(car), W, H).map((d) => d.cls)).toEqual([classIndex('car')]);
  });
});

describe('MainSubjectFinder: riders, what they ride, and the room', () => {
  const HORSE = classIndex('horse');
  const grey = new Uint8Array(W * H * 3).fill(120);

  async function kept(detections: { cls: number; box: Box; score: number }[]): Promise<number[]> {
    const detector = { detect: async () => detections.map((d) => ({ ...d })) } as unknown as NanodetDetector;
    const finder = new MainSubjectFinder(detector);
    let subjects: MainSubjects = { chosen: [], attached: [], all: [] };
    for (let k = 0; k < 6; k++) subjects = await finder.observe(grey, W, H);
    return [...subjects.chosen, ...subjects.attached].map((t) => t.cls).sort((a, b) => a - b);
  }

  it('a horse and its rider come out together, though the horse box is far larger than the rider\'s', async () => {
    expect(await kept([{ cls: HORSE, box: box(0.2, 0.35, 0.8, 0.95), score: 0.8 }, { cls: PERSON, box: box(0.42, 0.1, 0.58, 0.6), score: 0.6 }])).toEqual([PERSON, HORSE].sort((a, b) => a - b));
  });

  it('a bike under its rider comes with them though NanoDet scores it low (seen edge-on); what a person carries needs a higher score', async () => {
    const rider = { cls: PERSON, box: box(0.45, 0.1, 0.6, 0.65), score: 0.7 };
    const lowBike = { cls: classIndex('bicycle'), box: box(0.4, 0.45, 0.62, 0.9), score: 0.4 };
    expect(await kept([rider, lowBike])).toEqual([PERSON, classIndex('bicycle')]);
    expect(await kept([rider, { ...lowBike, score: 0.3 }])).toEqual([PERSON]);
    expect(await kept([rider, { ...lowBike, cls: DOG }])).toEqual([PERSON]);
    expect(await kept([rider, { ...lowBike, cls: DOG, score: 0.55 }])).toEqual([PERSON, DOG]);
  });

  it('a large box the person stands in (a pattern behind them that NanoDet calls a cake) is what they stand before, not what they carry', async () => {
    const skater = { cls: PERSON, box: box(0.44, 0.09, 0.71, 0.75), score: 0.6 };
    const cake = { cls: classIndex('cake'), box: box(0.22, 0.07, 0.8, 0.98), score: 0.55 };
    expect(await kept([skater, cake])).toEqual([PERSON]);
    // the same box smaller, holding less of the person: what they hold before them
    expect(await kept([skater, { ...cake, box: box(0.4, 0.4, 0.75, 0.9) }])).toEqual([PERSON, classIndex('cake')].sort((a, b) => a - b));
  });

  it('a box of what people ride over a car the detector is surer of is that car again: not attached to the person before it', async () => {
    const person = { cls: PERSON, box: box(0.6, 0.21, 0.72, 0.78), score: 0.6 };
    const car = { cls: CAR, box: box(0.23, 0.36, 0.79, 0.74), score: 0.63 };
    const carAsMotorcycle = { cls: classIndex('motorcycle'), box: box(0.24, 0.37, 0.8, 0.76), score: 0.38 };
    expect(await kept([person, car, carAsMotorcycle])).toEqual([PERSON]);
    // without the car's own box, or where the detector is surer of the motorcycle, the motorcycle goes with its rider
    expect(await kept([person, carAsMotorcycle])).toEqual([PERSON, classIndex('motorcycle')].sort((a, b) => a - b));
    expect(await kept([person, { ...car, score: 0.3 }, carAsMotorcycle])).toEqual([PERSON, classIndex('motorcycle')].sort((a, b) => a - b));
  });

  it("on a keyframe the detection starts when the frame begins, before RVM's alpha is there; between keyframes the detector does not run", async () => {
    let calls = 0;
    const person = box(0.4, 0.1, 0.6, 0.9);
    const detector = {
      detect: async () => {
        calls++;
        return [{ cls: PERSON, box: person, score: 0.8 }];
      },
    } as unknown as NanodetDetector;
    const finder = new MainSubjectFinder(detector, true);
    const finish = finder.begin(grey, W, H);
    expect(calls).toBe(1);
    expect((await finish(plane(person))).chosen.map((t) => t.cls)).toEqual([PERSON]);
    for (let k = 1; k < KEYFRAME_INTERVAL; k++) await finder.begin(grey, W, H)(plane(person));
    expect(calls).toBe(1);
    finder.begin(grey, W, H);
    expect(calls).toBe(2);
  });

  it('counts the frames between keyframes, so a small person walking behind the subject stays one track', async () => {
    const subject = box(0.2, 0.4, 0.45, 1);
    let walker = box(0.6, 0.3, 0.64, 0.5);
    const detector = { detect: async () => [{ cls: PERSON, box: subject, score: 0.8 }, { cls: PERSON, box: walker, score: 0.8 }] } as unknown as NanodetDetector;
    const finder = new MainSubjectFinder(detector, true, 8);
    for (let frame = 0; frame < 40; frame++) {
      if (frame > 0 && frame % 8 === 0) walker = translateBox(walker, 0.03, 0);
      await finder.begin(grey, W, H)(plane(subject));
    }
    const walking = finder.subjects.all.filter((t) => t.box.x0 > 0.5);
    expect(walking.map((t) => [t.hits, t.misses])).toEqual([[5, 0]]);
  });

  it("after a hard cut the last shot's tracks and choice are forgotten, and the next frame is a keyframe", async () => {
    let calls = 0;
    let person = box(0.1, 0.1, 0.3, 0.9);
    const detector = { detect: async () => (calls++, [{ cls: PERSON, box: person, score: 0.8 }]) } as unknown as NanodetDetector;
    const finder = new MainSubjectFinder(detector, true);
    for (let k = 0; k < 3; k++) await finder.begin(grey, W, H)(plane(person));
    expect(finder.subjects.chosen.map((t) => t.box)).toEqual([person]);
    calls = 0;
    // the new shot's person stands elsewhere: found on the frame after the cut, not at the next keyframe
    person = box(0.6, 0.1, 0.8, 0.9);
    finder.begin(grey, W, H);
    const observed = finder.newShot(grey, W, H);
    expect(finder.subjects).toEqual({ chosen: [], attached: [], all: [] });
    const subjects = await observed(plane(person));
    expect(calls).toBe(1);
    expect(subjects.all.map((t) => t.box)).toEqual([person]);
    // a cut on a keyframe: the detection already running on the frame is the new shot's
    for (let k = 1; k <= SETTLING_KEYFRAMES + KEYFRAME_INTERVAL - 1; k++) await finder.begin(grey, W, H)(plane(person));
    calls = 0;
    finder.begin(grey, W, H);
    expect(calls).toBe(1);
    await finder.newShot(grey, W, H)(plane(person));
    expect(calls).toBe(1);
  });

  it("human's finder: a new shot keeps everyone RVM sees over its first frames, all keyframes, and chooses its people after them", async () => {
    let calls = 0;
    const subject = box(0.3, 0.1, 0.6, 1);
    const faint = box(0.05, 0.5, 0.15, 0.8); // small and far off to the side: not a main subject
    const detector = { detect: async () => (calls++, [{ cls: PERSON, box: subject, score: 0.8 }, { cls: PERSON, box: faint, score: 0.8 }]) } as unknown as NanodetDetector;
    const finder = new MainSubjectFinder(detector, true, 8);
    for (let k = 0; k < 8; k++) await finder.begin(grey, W, H)(plane(subject, faint));
    expect(finder.subjects.chosen.map((t) => t.box)).toEqual([subject]);
    calls = 0;
    finder.begin(grey, W, H); // a keyframe: the new shot's first frame takes its detection
    expect((await finder.newShot(grey, W, H)(plane(subject, faint))).chosen).toEqual([]);
    for (let k = 1; k < SETTLING_KEYFRAMES; k++) expect((await finder.begin(grey, W, H)(plane(subject, faint))).chosen).toEqual([]);
    const settled = await finder.begin(grey, W, H)(plane(subject, faint));
    expect(settled.chosen.map((t) => t.box)).toEqual([subject]);
    expect(calls).toBe(SETTLING_KEYFRAMES + 1);
    // then keyframes come at the finder's interval again
    for (let k = 1; k < 8; k++) await finder.begin(grey, W, H)(plane(subject, faint));
    expect(calls).toBe(SETTLING_KEYFRAMES + 1);
    // `original`'s finder (objects too) and `light`'s (keyframes only) choose on the new shot's first frame
    for (const other of [new MainSubjectFinder(detector), new MainSubjectFinder(detector, true, 16, true)]) {
      await other.begin(grey, W, H)(plane(subject, faint));
      expect((await other.newShot(grey, W, H)(plane(subject, faint))).chosen.map((t) => t.box)).toEqual([subject]);
    }
  });

  it('until someone is chosen the detector runs on every frame, or only on keyframes where asked (`light`)', async () => {
    const runsOver = async (frames: number, keyframesOnly: boolean) => {
      let calls = 0;
      const detector = { detect: async () => (calls++, []) } as unknown as NanodetDetector;
      const finder = new MainSubjectFinder(detector, true, 16, keyframesOnly);
      for (let k = 0; k < frames; k++) expect((await finder.begin(grey, W, H)(plane())).chosen).toEqual([]);
      return calls;
    };
    expect(await runsOver(33, false)).toBe(33);
    expect(await runsOver(33, true)).toBe(3); // frames 0, 16 and 32
  });

  it("a keyframe reads RVM's alpha only where a person is tracked, or a person or what NanoDet mistakes people for scores high enough to be tracked", async () => {
    const reads = async (keyframes: { cls: number; box: Box; score: number }[][]): Promise<boolean[]> => {
      let k = 0;
      const detector = { detect: async () => keyframes[k++].map((d) => ({ ...d })) } as unknown as NanodetDetector;
      const finder = new MainSubjectFinder(detector);
      const out: boolean[] = [];
      while (k < keyframes.length) {
        const before = k;
        const finish = finder.begin(grey, W, H);
        const detected = k > before;
        if (detected) out.push(await finder.readsPeople());
        await finish(new Float32Array(W * H));
        if (!detected) expect(await finder.readsPeople()).toBe(false); // between keyframes nothing is read
      }
      return out;
    };
    const car = { cls: CAR, box: box(0.2, 0.3, 0.8, 0.9), score: 0.8 };
    const faint = (cls: number) => ({ cls, box: box(0.05, 0.05, 0.15, 0.3), score: 0.15 });
    // a car clip: NanoDet's faint "person" and "dog" in the background are never tracked
    expect(await reads([[car], [car, faint(PERSON), faint(DOG)], [car]])).toEqual([false, false, false]);
    // a dog chosen: each keyframe asks RVM whether the dog is a person seen from behind
    expect(await reads([[{ ...car, cls: DOG }], [{ ...car, cls: DOG, score: 0.2 }]])).toEqual([true, true]);
    // a person walks in: read from the keyframe that finds them on
    expect(await reads([[car], [car, { cls: PERSON, box: box(0.85, 0.2, 0.95, 0.9), score: 0.5 }], [car]])).toEqual([false, true, true]);
  });

  it("a person NanoDet scores low, whose box RVM's matte fills, is tracked while no one is: the car behind them is not chosen in their place", async () => {
    const car = { cls: CAR, box: box(0.25, 0.37, 0.8, 0.72), score: 0.62 };
    const swinger = box(0.5, 0.2, 0.62, 0.95);
    const chosenOn = async (people: Float32Array, peopleOnly = false) => {
      const detector = { detect: async () => [car, { cls: PERSON, box: swinger, score: 0.2 }].map((d) => ({ ...d })) } as unknown as NanodetDetector;
      return (await new MainSubjectFinder(detector, peopleOnly).observe(grey, W, H, people)).chosen.map((t) => t.cls);
    };
    expect(await chosenOn(plane(swinger))).toEqual([PERSON]);
    // RVM sees no one in the low box: it is not tracked, and the car is the subject
    expect(await chosenOn(plane())).toEqual([CAR]);
    // `human` and `light` keep everyone RVM sees until someone is chosen: the low box starts no track there
    expect(await chosenOn(plane(swinger), true)).toEqual([]);
  });

  it('a sofa behind a person is the room: the person alone comes out, though the sofa is larger and as central', async () => {
    const sofa = { cls: classIndex('couch'), box: box(0.15, 0.3, 0.85, 0.95), score: 0.8 };
    expect(await kept([sofa, { cls: PERSON, box: box(0.4, 0.1, 0.6, 0.9), score: 0.8 }])).toEqual([PERSON]);
  });

  it('a chair on show with nothing else in sight is the subject', async () => {
    expect(await kept([{ cls: classIndex('chair'), box: box(0.3, 0.2, 0.7, 0.9), score: 0.8 }])).toEqual([classIndex('chair')]);
  });

  it('the chair a person sits on is not carried by them', async () => {
    const chair = { cls: classIndex('chair'), box: box(0.4, 0.5, 0.6, 0.95), score: 0.8 };
    expect(await kept([chair, { cls: PERSON, box: box(0.38, 0.1, 0.62, 0.9), score: 0.8 }])).toEqual([PERSON]);
  });

  it('a car parked behind a person is not carried by them: the person alone comes out', async () => {
    const parked = { cls: CAR, box: box(0.55, 0.6, 0.72, 0.8), score: 0.8 };
    expect(await kept([parked, { cls: PERSON, box: box(0.35, 0.1, 0.65, 0.95), score: 0.8 }])).toEqual([PERSON]);
    // what a person may carry, in the same place, comes with them
    expect(await kept([{ ...parked, cls: DOG }, { cls: PERSON, box: box(0.35, 0.1, 0.65, 0.95), score: 0.8 }])).toEqual([PERSON, DOG].sort((a, b) => a - b));
  });

  it('a person in front of a car the camera follows is the subject; the car with only its driver in sight stays the subject', async () => {
    const followed = { cls: CAR, box: box(0.22, 0.37, 0.8, 0.76), score: 0.8 };
    expect(await kept([followed, { cls: PERSON, box: box(0.54, 0.11, 0.68, 0.64), score: 0.6 }])).toEqual([PERSON]);
    expect(await kept([followed, { cls: PERSON, box: box(0.5, 0.42, 0.6, 0.6), score: 0.6 }])).toEqual([CAR]);
  });

  it('a busy backdrop taken for an object around a person RVM fills is not the subject: the person alone comes out', async () => {
    const umbrella = { cls: classIndex('umbrella'), box: box(0.05, 0, 0.86, 0.94), score: 0.54 };
    const person = { cls: PERSON, box: box(0.45, 0.46, 0.64, 1), score: 0.6 };
    expect(await kept([umbrella, person])).toEqual([PERSON]);
    // a boat with a person in it stays the subject, as a car with its driver does
    expect(await kept([{ ...umbrella, cls: classIndex('boat') }, { ...person, box: box(0.4, 0.4, 0.5, 0.6) }])).toEqual([classIndex('boat')]);
  });

  it('a large car behind a small person is not ridden: the person does not come with it', async () => {
    expect(await kept([{ cls: CAR, box: box(0.1, 0.3, 0.9, 0.95), score: 0.8 }, { cls: PERSON, box: box(0.45, 0.2, 0.55, 0.6), score: 0.4 }])).toEqual([CAR]);
  });
});
