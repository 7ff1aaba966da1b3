import { BoxTracker, Track, TrackedDetection } from './box-tracker';
import { boxArea, intersectionArea, iou, liesInside } from './boxes';
import { Detection } from './nanodet-decode';
import { NanodetDetector } from './nanodet-detector';
import { distinctObjects, fillIn, isScenery, PERSON, peopleRvmConfirms, personSupported, RIDDEN, SAME_OBJECT_IOU, TrackChooser, VEHICLES } from './track-chooser';
import { personInside } from './subject-selector';
import { classIndex } from './vocabulary';

export { PERSON };
/**
 * After a cut (or the people jumping), `human`'s finder (people alone) keeps every person RVM sees on
 * the new shot's first this many frames, which are all keyframes, and chooses its people on the
 * keyframe after them. RVM's recurrent state takes in a new shot's people over its first frames, and
 * a choice made on the first alone held until the next keyframe. On an AVX2-only AMD EPYC RVM saw the second of two
 * people too faintly on that first frame to confirm NanoDet's box of them, and `human` dropped them
 * for 8 frames (IoU 0.48 there): 0.890 over the room cut's 2 s (composites.spec.ts); everyone kept
 * on 2 or 3 frames: 0.968 (on 1: 0.880); the cut elsewhere unchanged. The others choose on the
 * first frame, as before. `light` scored 0.970 either way, and its detector is not cheap beside it
 * (`keyframesOnly`: 3 more runs a cut). `original`, with nothing chosen, mattes RVM's whole people
 * plane or ISNet's whole salient one: the objects it chose (a bike under its rider) would drop out.
 */
export const SETTLING_KEYFRAMES = 3;

/** the detector runs on every `KEYFRAME_INTERVAL`-th frame (and on every frame until a subject is found) */
export const KEYFRAME_INTERVAL = 4;
/** an object whose box lies this much inside a chosen person's box is carried by them (a bike, a board, a dog on a lead; never scenery: the chair they sit on) */
const ATTACHED_SHARE = 0.3;
/** what NanoDet calls people now and then (seen from behind, curled up): animals people do not ride, and toys */
const MISTAKEN_FOR_PEOPLE = new Set((['bird', 'cat', 'dog', 'sheep', 'cow', 'bear', 'teddy bear'] as const).map((cls) => classIndex(cls)));
/** RVM's matte fills a box of another class this much (mean alpha; a person's own box: ~0.5-0.7): it is a person (peopleRvmFills) */
const PERSON_FILL = 0.4;
/** an object attached to a person is kept from this detector confidence (a low-scored box is often the person again) */
const ATTACHED_CONFIDENCE = 0.5;

/**
 * A ridden object attached to its rider is kept from this lower confidence: the riding test (their
 * boxes overlap by `ATTACHED_SHARE` of the smaller) already vouches for it, and NanoDet scores a bike
 * seen edge-on under its rider low (DAVIS bmx-trees' first frames: 0.41, the bike left out of the
 * matte until it scored 0.58).
 * Measured on the five DAVIS people clips, whole clips, 0.5 -> 0.35: bmx-trees 0.576 -> 0.586,
 * kite-walk 0.601 -> 0.617, swing 0.838 -> 0.840, rollerblade and breakdance-flare unchanged (0.25:
 * the same). The cost: ISNet runs for the object kept (swing 87 -> 159 ms a frame).
 */
const RIDDEN_CONFIDENCE = 0.35;

/** the detector confidence from which `object` may be attached to a chosen person */
function attachedConfidence(object: Track): number {
  return RIDDEN.has(object.cls) ? RIDDEN_CONFIDENCE : ATTACHED_CONFIDENCE;
}

/**
 * `object` goes with `person`: it lies enough inside their box (a ridden object: their boxes overlap
 * enough). Never a vehicle: a vehicle behind someone (a parked car, a passing bus) overlaps their box
 * on a street, and went with them into the matte. Nor, what people ride excepted, an object whose box
 * holds theirs: the backdrop they stand before. A fractal's disc behind a skater, called a cake at
 * 0.50, held 0.3 of its large box in hers, and ISNet's blob of it went into the matte (own composite
 * of DAVIS rollerblade over the fractal, `original` on an AVX2-only AMD EPYC, 0.864 -> 0.938).
 */
function carriedBy(object: Track, person: Track): boolean {
  if (VEHICLES.has(object.cls)) return false;
  if (RIDDEN.has(object.cls)) return intersectionArea(person.box, object.box) >= ATTACHED_SHARE * Math.min(boxArea(object.box), boxArea(person.box));
  // a person whose box lies inside the object's stands before it, as before a backdrop (the selector's rule 5)
  return !personInside(person, object) && liesInside(object.box, person.box, ATTACHED_SHARE);
}

/**
 * `object`'s box is a vehicle's that the detector is surer of: the vehicle under a second label, not
 * what the person before it carries or rides (a car behind a walker, also boxed as a motorcycle at
 * 0.26-0.38, went into the matte with them: DAVIS kite-walk over car-roundabout)
 */
function vehicleAgain(object: Track, tracks: readonly Track[]): boolean {
  return tracks.some((v) => VEHICLES.has(v.cls) && v.bestScore > object.bestScore && iou(v.box, object.box) >= SAME_OBJECT_IOU);
}

/** `person` rides `object`: a ridden object holding enough of their box */
function rides(person: Track, object: Track): boolean {
  return RIDDEN.has(object.cls) && liesInside(person.box, object.box, ATTACHED_SHARE);
}

export interface MainSubjects {
  /** chosen tracks (the video's main subjects), with the people riding a chosen object */
  chosen: Track[];
  /** objects not chosen on their own but attached to a chosen person */
  attached: Track[];
  /** every live track */
  all: readonly Track[];
}

/**
 * The main subjects of a video, kept up to date on keyframes: NanoDet finds objects, the box
 * tracker keeps their identity, the subject selector (subject-selector.ts) rates them by size,
 * centrality, focus, motion and confidence over time and chooses. Frames are given at the
 * video's aspect ratio.
 */
export class MainSubjectFinder {
  private tracker = new BoxTracker();
  private chooser = new TrackChooser();
  private current: MainSubjects = { chosen: [], attached: [], all: [] };
  private framesSinceKeyframe: number | undefined;
  /** the number of the frame last begun, by which the tracker predicts where its tracks moved */
  private frame = -1;
  /** the detection of the frame last begun, when it is a keyframe */
  private detecting?: Promise<Detection[]>;
  /** how many more keyframes a new shot settles over before its people are chosen (SETTLING_KEYFRAMES) */
  private settling = 0;

  /**
   * `peopleOnly`: only people can be chosen, and nothing is attached to them (`human`);
   * `keyframeInterval`: the detector runs on every so many frames once a subject is chosen;
   * `keyframesOnly`: and before, too (`light`, beside which the detector is not cheap: run on every
   * frame of a clip with no one in it, it took `light` from 32 to 80 ms of CPU a frame)
   */
  constructor(
    private readonly detector: NanodetDetector,
    private readonly peopleOnly = false,
    private readonly keyframeInterval = KEYFRAME_INTERVAL,
    private readonly keyframesOnly = false,
  ) {}

  get subjects(): MainSubjects {
    return this.current;
  }

  /**
   * The video cut to another shot before the frame last begun, or its people jumped there
   * (people-jump.ts): the last shot's tracks and choices are forgotten, and that frame is begun
   * again as the new shot's first keyframe (on the detection already running on it, where it was a
   * keyframe). Until the new shot's subjects are chosen, after SETTLING_KEYFRAMES, the people RVM
   * sees are kept.
   */
  newShot(rgb: Uint8Array, width: number, height: number): (people?: Float32Array) => Promise<MainSubjects> {
    const running = this.detecting;
    this.tracker = new BoxTracker();
    this.chooser = new TrackChooser();
    this.current = { chosen: [], attached: [], all: [] };
    this.framesSinceKeyframe = 0;
    this.settling = this.peopleOnly && !this.keyframesOnly ? SETTLING_KEYFRAMES : 0;
    return this.observing(rgb, width, height, running ?? this.detect(rgb, width, height));
  }

  /**
   * Whether the subjects stay as they are over the next `frames` frames begun: some are chosen
   * (else the detector runs on every frame) and no keyframe falls among them.
   */
  holdFor(frames: number): boolean {
    return this.current.chosen.length > 0 && this.framesSinceKeyframe !== undefined && this.framesSinceKeyframe + frames < this.keyframeInterval;
  }

  /**
   * Whether completing the frame last begun reads RVM's alpha: on a keyframe where a person is
   * tracked, or the detector finds a person, or what it mistakes people for, scored high enough to
   * be tracked (a car clip's 0.1 "person" in the trees is not).
   */
  async readsPeople(): Promise<boolean> {
    if (!this.detecting) return false;
    if (this.tracker.tracks.some((t) => t.cls === PERSON)) return true;
    return (await this.detecting).some((d) => (d.cls === PERSON || MISTAKEN_FOR_PEOPLE.has(d.cls)) && this.tracker.couldTrack(d));
  }

  /**
   * One frame of the video, in order: observed when it is a keyframe (the first, then every
   * `keyframeInterval`-th), and on every frame while no subject is chosen yet (the detector is
   * cheap beside the matting models). In two steps, so that the detector runs while the caller runs
   * RVM on the same frame: the detection starts now, and the returned function completes the frame
   * with RVM's alpha. Frames are begun and completed in order, one at a time.
   */
  begin(rgb: Uint8Array, width: number, height: number): (people?: Float32Array) => Promise<MainSubjects> {
    const settling = this.settling > 0;
    if (settling) this.settling--;
    const keyframeDue = settling || this.framesSinceKeyframe === undefined || this.framesSinceKeyframe + 1 >= this.keyframeInterval;
    this.framesSinceKeyframe = keyframeDue ? 0 : this.framesSinceKeyframe! + 1;
    this.frame++;
    this.detecting = undefined;
    if (!keyframeDue && (this.current.chosen.length > 0 || this.keyframesOnly)) return () => Promise.resolve(this.current);
    return this.observing(rgb, width, height, this.detect(rgb, width, height));
  }

  /** the frame begun, observed on `detecting` (its detection) once RVM's alpha is there */
  private observing(rgb: Uint8Array, width: number, height: number, detecting: Promise<Detection[]>): (people?: Float32Array) => Promise<MainSubjects> {
    this.detecting = detecting;
    // a caller whose RVM run fails never completes the frame: its detection's failure is not lost unhandled
    detecting.catch(() => undefined);
    return async (people) => this.update(await detecting, rgb, width, height, people);
  }

  /**
   * One keyframe at the video's aspect ratio. `people`: RVM's alpha of the same frame (same
   * size), which confirms a person track whose box it fills enough of.
   */
  async observe(rgb: Uint8Array, width: number, height: number, people?: Float32Array): Promise<MainSubjects> {
    this.frame++;
    return this.update(await this.detect(rgb, width, height), rgb, width, height, people);
  }

  private detect(rgb: Uint8Array, width: number, height: number): Promise<Detection[]> {
    return this.detector.detect(rgb, width, height, { box: { x0: 0, y0: 0, x1: 1, y1: 1 }, aspect: width / height });
  }

  private update(detections: Detection[], rgb: Uint8Array, width: number, height: number, people?: Float32Array): MainSubjects {
    const live = this.tracker.tracks;
    // RVM still seeing a person where their track was predicted holds the track through the detector's misses
    const supported = people ? new Set(live.filter((t) => t.cls === PERSON && personSupported(people, width, height, t.box)).map((t) => t.id)) : undefined;
    const labelled = people ? peopleRvmFills(detections, people, width, height) : detections;
    const candidates = samePersonAgain(labelled, live);
    // `human` and `light` keep every person RVM sees until one is chosen; `original` would choose what else it finds
    const confirmed = this.peopleOnly ? undefined : peopleRvmConfirms(candidates, live.some((t) => t.cls === PERSON), people, width, height);
    const tracks = distinctObjects(this.tracker.update(candidates, supported, confirmed, this.frame));
    const choosable = this.peopleOnly ? tracks.filter((t) => t.cls === PERSON) : tracks;
    const chosenIds = this.chooser.choose(rgb, width, height, choosable, people);
    const chosen = choosable.filter((t) => chosenIds.has(t.id));
    const chosenPeople = chosen.filter((t) => t.cls === PERSON);
    const chosenObjects = chosen.filter((t) => t.cls !== PERSON);
    const attached = this.peopleOnly ? [] : tracks.filter((t) => !chosenIds.has(t.id) && t.cls !== PERSON && !isScenery(t) && t.bestScore >= attachedConfidence(t) && chosenPeople.some((p) => carriedBy(t, p)) && !vehicleAgain(t, tracks));
    const riders = tracks.filter((t) => !chosenIds.has(t.id) && t.cls === PERSON && chosenObjects.some((o) => rides(t, o)));
    // a new shot still settling keeps everyone RVM sees; its chooser already weighs what it finds
    this.current = this.settling > 0 ? { chosen: [], attached: [], all: tracks } : { chosen: [...chosen, ...riders], attached, all: tracks };
    return this.current;
  }
}

/**
 * Detections of another class whose box RVM's matte fills are people under a second label: NanoDet
 * calls people seen from behind teddy bears, dogs or cats, at times for a whole clip, scoring its
 * person boxes of them lower (two people from behind: `original` kept 0.66 of them for choosing two
 * "teddy bears"), while RVM, trained on people, leaves an animal's box empty (DAVIS dog: 0.000).
 * Only the classes it mistakes people for: RVM also leaves specks on other things (a red car's bonnet
 * filled a car's box to 0.4 on DAVIS car-roundabout), and what people ride keeps its class.
 */
export function peopleRvmFills<D extends TrackedDetection>(detections: readonly D[], people: Float32Array, width: number, height: number): D[] {
  return detections.map((d) => (MISTAKEN_FOR_PEOPLE.has(d.cls) && fillIn(people, width, height, d.box) >= PERSON_FILL ? { ...d, cls: PERSON } : d));
}

/**
 * Detections of another class lying over a person track that no person detection continues on
 * this keyframe are that person under a second label (NanoDet calls a person seen from behind a
 * dog or a teddy bear now and then): they continue the person's track instead of ending it. Where
 * the person is also detected, the other box stays what it says (a bike under its rider).
 */
export function samePersonAgain<D extends TrackedDetection>(detections: readonly D[], tracks: readonly Track[]): D[] {
  const people = tracks.filter((t) => t.cls === PERSON);
  const unseen = people.filter((t) => !detections.some((d) => d.cls === PERSON && iou(d.box, t.box) >= SAME_OBJECT_IOU));
  return detections.map((d) => (d.cls !== PERSON && unseen.some((t) => iou(d.box, t.box) >= SAME_OBJECT_IOU) ? { ...d, cls: PERSON } : d));
}
