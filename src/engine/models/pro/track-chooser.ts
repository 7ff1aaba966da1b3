import { downsampledLuma } from '../temporal/keyframe-propagator';
import { DEFAULT_TRACKER_OPTIONS, Track, TrackedDetection } from './box-tracker';
import { Box, iou } from './boxes';
import { figureExtents } from './region-gate';
import { SUBJECT_CONFIDENCE, SubjectSelector, TrackObservation } from './subject-selector';
import { classIndex } from './vocabulary';

/** read once: a global looked up in a per-pixel loop is slow under Jest (docs/testing.md) */
const { abs, ceil, floor, max, min } = Math;

export const PERSON = classIndex('person');
/** focus and motion are measured on luma at 1/`MEASURE_DOWNSAMPLING` of the frame */
const MEASURE_DOWNSAMPLING = 2;
/** a person track is confirmed by RVM when its matte covers this share of the box (a standing person fills ~40-60%) */
const PERSON_SUPPORT = 0.2;
/**
 * ... or when the box holds this share of RVM's whole matte, and that matte is a person in sight
 * (`PERSON_IN_SIGHT` of the frame): a person in a sprawling pose (a dancer on one hand, a loose
 * box) fills less of the box, but what RVM sees is in it. Measured on DAVIS breakdance-flare: the
 * dancer's first box holds ~85% of RVM's matte at a fill of 0.17, and was left out for four frames
 * while two flower pots were chosen.
 */
const PERSON_MATTE_SHARE = 0.6;
const PERSON_IN_SIGHT = 0.01;

/** what carries people on roads, rails, water and runways: never carried by a person (main-subjects.ts), and second to people in the choice (subject-selector.ts, rule 4) */
export const VEHICLES = new Set((['car', 'bus', 'truck', 'train', 'airplane', 'boat'] as const).map((cls) => classIndex(cls)));

/**
 * What people ride. A ridden object's box is often much larger than its rider's (a horse, an
 * elephant), so it goes with a chosen rider when their boxes overlap enough of the smaller box, and
 * a chosen ridden object brings the people on it, whose matte is RVM's (main-subjects.ts); its box
 * holding its rider is no backdrop (subject-selector.ts, rule 5).
 */
export const RIDDEN = new Set((['bicycle', 'motorcycle', 'horse', 'elephant', 'skateboard', 'surfboard', 'skis', 'snowboard'] as const).map((cls) => classIndex(cls)));

/** a box of another class overlapping a person's this much is the person again */
export const SAME_OBJECT_IOU = 0.6;

/**
 * The tracks that are distinct objects: a box of another class over a person's box is that person
 * under a second label (NanoDet sometimes calls a dancer a dog), not a second subject.
 */
export function distinctObjects(tracks: readonly Track[]): Track[] {
  return tracks.filter((t) => t.cls === PERSON || !tracks.some((p) => p.cls === PERSON && iou(p.box, t.box) >= SAME_OBJECT_IOU));
}

/**
 * The motion of every track on a keyframe with no frame before it (the first, or after a change of
 * size): unknown, so each counts as busy as the busiest (a full share), not as still. Counted still,
 * the motion's weight went to no one and the ratings' ratios spread: of two people in a composite
 * (at 0.8 and 0.6 of the frame's height) the second rated 0.694 of the first, under the 0.7 to be
 * chosen, and was dropped until the second keyframe (`light` 0.905 over the clip, `human` 0.956;
 * 0.961 and 0.984 with motion unknown).
 */
const UNKNOWN_MOTION = 1;

/**
 * Measures each live track's focus and motion in the frame and lets the subject selector
 * (subject-selector.ts) choose among them; one per video, called on keyframes.
 */
export class TrackChooser {
  private readonly selector = new SubjectSelector();
  private previousLuma?: { width: number; height: number; data: Float32Array };
  /**
   * The person tracks whose box RVM's matte has filled (`PERSON_SUPPORT`) on some keyframe: they stay
   * confirmed while the track lives. RVM's support comes and goes with the track's predicted box (a
   * fast skater outruns it between keyframes, and the detector scores them 0.36-0.44), and a subject
   * dropped on those keyframes let a pattern behind them take their place (own composite of DAVIS
   * rollerblade over a fractal: `original` 0.637 -> 0.954; docs/engine-measurements.md, 1 December
   * 2026). Not the looser confirmation by a share of RVM's matte: a loose box over half the frame
   * holding a small rider was remembered as a person on DAVIS bmx-trees (`light` 0.426 -> 0.363).
   */
  private readonly filledPeople = new Set<number>();

  /**
   * `people`: RVM's alpha of the same frame (same size), which confirms a person track whose box it
   * fills enough of (see `filledPeople`), and gives a person boxed in part the box of their whole
   * figure to be rated on (region-gate.ts, `figureExtents`): NanoDet boxes a person from the helmet to
   * the board they carry, and rated on that half they fell under half the prominence of the car
   * behind them, which was chosen in their place (DAVIS kite-walk over car-roundabout: `original`
   * 0.245, 0.504 with this and main-subjects.ts's `vehicleAgain`).
   */
  choose(rgb: Uint8Array, width: number, height: number, tracks: readonly Track[], people?: Float32Array): Set<number> {
    const luma = downsampledLuma(rgb, width, height, MEASURE_DOWNSAMPLING);
    const previous = this.previousLuma;
    this.previousLuma = luma;
    const confirmed = this.confirmPeople(tracks, width, height, people);
    const supported = (track: Track) => confirmed.has(track.id) || this.filledPeople.has(track.id);
    // a person is rated on the box of RVM's whole figure where the detector boxed part of them; focus and motion stay the box's
    const figure = people && tracks.some((t) => t.cls === PERSON) ? figureExtents(people, width, height) : undefined;
    const rated = this.selector.update(
      withoutScenery(tracks, supported).map((track) => ({
        id: track.id,
        box: figure && track.cls === PERSON ? figure(track.box) : track.box,
        confidence: track.bestScore,
        focus: sharpnessIn(luma, track.box),
        motion: previous && previous.data.length === luma.data.length ? changeIn(luma.data, previous.data, luma.width, luma.height, track.box) : UNKNOWN_MOTION,
        supported: supported(track),
        held: track.misses > 0,
        kind: kindOf(track.cls),
      })),
    );
    return new Set(rated.filter((r) => r.chosen).map((r) => r.id));
  }

  /** the person tracks RVM's matte confirms on this keyframe; those it fills join `filledPeople` (each box's fill measured once) */
  private confirmPeople(tracks: readonly Track[], width: number, height: number, people?: Float32Array): Set<number> {
    const live = new Set(tracks.map((t) => t.id));
    for (const id of this.filledPeople) if (!live.has(id)) this.filledPeople.delete(id);
    const confirmed = new Set<number>();
    if (!people) return confirmed;
    for (const t of tracks) {
      if (t.cls !== PERSON) continue;
      const fill = fillIn(people, width, height, t.box);
      if (fill >= PERSON_SUPPORT) this.filledPeople.add(t.id);
      if (personSupported(people, width, height, t.box, fill)) confirmed.add(t.id);
    }
    return confirmed;
  }
}

/** what the subject selector's rules 4 and 5 need to know of a class */
function kindOf(cls: number): TrackObservation['kind'] {
  if (cls === PERSON) return 'person';
  if (VEHICLES.has(cls)) return 'vehicle';
  return RIDDEN.has(cls) ? undefined : 'object';
}

/**
 * Furniture and fixtures: the room a video is shot in. Beside a person they rate as high as the
 * person on size, centrality and focus (a sofa behind someone at a desk; on DAVIS's
 * breakdance-flare two flower pots went with the dancer), yet a viewer never means them.
 */
const SCENERY = new Set(
  (['chair', 'couch', 'potted plant', 'bed', 'dining table', 'toilet', 'tv', 'bench', 'microwave', 'oven', 'toaster', 'sink', 'refrigerator', 'clock'] as const).map((cls) =>
    classIndex(cls),
  ),
);

export function isScenery(track: Track): boolean {
  return SCENERY.has(track.cls);
}

/**
 * The tracks that can be a main subject: scenery only in a video where nothing else can be (no
 * other track the detector is sure of, no person RVM confirms); then a chair on show is the subject.
 */
export function withoutScenery(tracks: readonly Track[], supported: (track: Track) => boolean): readonly Track[] {
  const other = tracks.some((t) => !isScenery(t) && (t.bestScore >= SUBJECT_CONFIDENCE || supported(t)));
  return other ? tracks.filter((t) => !isScenery(t)) : tracks;
}

/**
 * While no person is tracked nor sure to start, the person detections RVM's matte confirms
 * (`personSupported`): they start a track from the tracker's continuing score (box-tracker.ts).
 * NanoDet scores a person it has not seen before low at times (DAVIS rollerblade's skater 0.33 on
 * the first frame, 0.46 on the 4th; a girl on a swing 0.13-0.32 on her first 8 frames). Without a
 * track `pro` shows no one, and `original` chose what else the detector was sure of in their place:
 * the car behind the girl until she scored 0.5 on frame 12 (own composite of DAVIS swing over
 * car-roundabout, `original` 0.715 -> 0.796). Beside a person it is sure of, a low box is often a
 * loose one over them and someone else, and would start a track too.
 */
export function peopleRvmConfirms<D extends TrackedDetection>(detections: readonly D[], personTracked: boolean, people: Float32Array | undefined, width: number, height: number): Set<D> {
  const persons = detections.filter((d) => d.cls === PERSON);
  if (!people || personTracked || persons.some((d) => d.score >= DEFAULT_TRACKER_OPTIONS.startScore)) return new Set();
  return new Set(persons.filter((d) => d.score >= DEFAULT_TRACKER_OPTIONS.continueScore && personSupported(people, width, height, d.box)));
}

/** RVM's matte confirms a person track in `box` (see `PERSON_SUPPORT` and `PERSON_MATTE_SHARE`); `fill`: fillIn's of the box, when measured already */
export function personSupported(people: Float32Array, width: number, height: number, box: Box, fill = fillIn(people, width, height, box)): boolean {
  if (fill >= PERSON_SUPPORT) return true;
  let total = 0;
  for (let i = 0; i < people.length; i++) total += people[i];
  if (total < PERSON_IN_SIGHT * people.length) return false;
  const r = pixelRange(box, width, height);
  return (fill * (r.x1 - r.x0) * (r.y1 - r.y0)) / total >= PERSON_MATTE_SHARE;
}

function pixelRange(box: Box, width: number, height: number) {
  return {
    x0: max(1, floor(box.x0 * width)),
    x1: min(width - 1, ceil(box.x1 * width)),
    y0: max(1, floor(box.y0 * height)),
    y1: min(height - 1, ceil(box.y1 * height)),
  };
}

/** mean absolute Laplacian inside the box: high where the picture is sharp (in focus) */
export function sharpnessIn(luma: { width: number; height: number; data: Float32Array }, box: Box): number {
  const { width, data } = luma;
  const r = pixelRange(box, width, luma.height);
  let sum = 0;
  let count = 0;
  for (let y = r.y0; y < r.y1; y++) {
    for (let x = r.x0, i = y * width + r.x0; x < r.x1; x++, i++) {
      sum += abs(4 * data[i] - data[i - 1] - data[i + 1] - data[i - width] - data[i + width]);
      count++;
    }
  }
  return count ? sum / count : 0;
}

/** mean alpha inside the box */
export function fillIn(alpha: Float32Array, width: number, height: number, box: Box): number {
  const r = pixelRange(box, width, height);
  let sum = 0;
  let count = 0;
  for (let y = r.y0; y < r.y1; y++) for (let x = r.x0, i = y * width + r.x0; x < r.x1; x++, i++, count++) sum += alpha[i];
  return count ? sum / count : 0;
}

/** mean absolute luma change inside the box between two frames */
export function changeIn(current: Float32Array, previous: Float32Array, width: number, height: number, box: Box): number {
  const r = pixelRange(box, width, height);
  let sum = 0;
  let count = 0;
  for (let y = r.y0; y < r.y1; y++) for (let x = r.x0, i = y * width + r.x0; x < r.x1; x++, i++, count++) sum += abs(current[i] - previous[i]);
  return count ? sum / count : 0;
}
