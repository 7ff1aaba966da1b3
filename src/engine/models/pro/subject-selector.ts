import { Box, boxArea, boxCentre, liesInside } from './boxes';

/**
 * Which of the tracked objects the video is about (its main subject or subjects). The rule:
 *
 * 1. On every keyframe each live track is rated 0..1 by how prominent it is:
 *    size .40 (its box area against the largest track's, or against a twentieth of the frame when
 *    every track is smaller: a lone small box is not big; a box half as wide and half as tall as
 *    the largest rates 0.25), centrality .20 (1 at the frame's centre, 0 at a corner), focus .15
 *    (sharpness inside its box against the sharpest track's: the subject is the one in focus),
 *    motion .15 (change inside its box since the last keyframe against the most-changing track's:
 *    the subject is what moves, not a seated crowd) and detector confidence .10. A track under a
 *    quarter of the area of the largest one the detector found on this keyframe has its whole
 *    rating scaled by its share over that quarter: far smaller than the subject, passers-by behind
 *    them are background however sharp, central and busy they are (on the other cues alone they
 *    rated 0.7 of the subject and were chosen). A box held through the detector's misses is where
 *    the object was, not where it is, and is not that measure (on DAVIS bmx-trees a stale box
 *    behind the rider would have put him in the background).
 * 2. A track's prominence is that rating averaged over time (an exponential average over
 *    keyframes, so one odd frame does not decide, yet someone walking in catches up in a few).
 * 3. Only a track the detector is sure of (best score at least 0.5), or one a segmentation
 *    model confirms (`supported`: for a person, RVM's matte fills a good part of its box), can be
 *    chosen: a subject is not a guess. Those tracks also set the scale of step 1 (the largest,
 *    sharpest, busiest), so a guess does not shrink the others' ratings. The chosen tracks are
 *    those at least 0.7 of the most prominent one's; a chosen track is dropped only when it falls
 *    below 0.5 of it (hysteresis: a choice does not flip from frame to frame). Someone walking into the shot is therefore chosen once they are about as
 *    prominent as the subject, and no sooner.
 * 4. People come before vehicles: a vehicle is not chosen while a person who can be chosen, and
 *    is not in it, rates at least half of its prominence. A car or a bus behind
 *    someone is the street they stand in; the camera following a car past a person in front of it
 *    made the car the subject and left the person out (own composites of DAVIS people over DAVIS
 *    car-roundabout: the car rated 0.80, the person 0.45-0.55). A person is in the vehicle (its
 *    driver, a passenger) when their box lies inside its box and ends above its lowest
 *    `FEET_SHARE`: the door hides a seated body below the window, while someone standing before a
 *    car, a bus or a train reaches down to its wheels (DAVIS swing over car-roundabout, the girl's
 *    box inside the car's and ending 0.26 of its height above its bottom: the car was chosen beside
 *    her, `original` 0.796 -> 0.821).
 * 5. An object whose box holds a person who can be chosen is what they stand in front of, not a
 *    subject (vehicles have rule 4; what people ride is no such object). NanoDet
 *    takes a busy backdrop for an object now and then, its box over most of the frame around the
 *    person; once it scored 0.5, it outrated them on size and they were dropped (own composite of a
 *    person turning before a fractal, brightened: `original` 0.631; a pattern taken for an umbrella
 *    at 0.54).
 *
 * Pure: the caller measures focus and motion; this ranks.
 */
export const SELECTION_WEIGHTS = { size: 0.4, centrality: 0.2, focus: 0.15, motion: 0.15, confidence: 0.1 } as const;
/** a track becomes a subject at this share of the best prominence */
export const CHOOSE_RATIO = 0.7;
/** a subject stays one down to this share */
export const KEEP_RATIO = 0.5;
/** weight of a keyframe's rating in the time average */
export const PROMINENCE_RESPONSE = 0.5;
/** a track's detector confidence must reach this for it to be chosen */
export const SUBJECT_CONFIDENCE = 0.5;
/** box area (share of the frame) that rates full size even when no track is larger */
export const FULL_SIZE_AREA = 0.05;
/** below this share of the largest box found on the keyframe a track's whole rating shrinks with its size (rule 1) */
export const BACKGROUND_SIZE_SHARE = 0.25;
/** a vehicle yields to a person rating at least this share of its prominence (rule 4) */
export const PEOPLE_FIRST_SHARE = 0.5;
/** a person whose box lies this much inside a vehicle's box is in it (rule 4), inside an object's is before it (rule 5) */
export const INSIDE_SHARE = 0.8;
/** ... and is in the vehicle only where their box ends above this share of its height, from its bottom up (rule 4) */
export const FEET_SHARE = 0.3;

export interface TrackObservation {
  id: number;
  box: Box;
  /** detector confidence (the track's last or best score), 0..1 */
  confidence: number;
  /** sharpness inside the box (any non-negative unit, compared across tracks of the same frame) */
  focus: number;
  /** change inside the box since the last keyframe (any non-negative unit, compared across tracks) */
  motion: number;
  /** a segmentation model confirms the object (see rule 3) */
  supported?: boolean;
  /** the detector missed it on this keyframe: the box is the track's last or predicted one */
  held?: boolean;
  /** what the object is, where it matters: rules 4 and 5 (what people ride: none of these) */
  kind?: 'person' | 'vehicle' | 'object';
}

export interface SelectedTrack {
  id: number;
  /** the time-averaged prominence, 0..1 */
  prominence: number;
  chosen: boolean;
}

/**
 * One keyframe's ratings, 0..1 each (no history). Size, focus and motion are measured against the
 * largest, sharpest and busiest of `scale` (default: all of them), each share at most 1; the
 * background rule against the largest of them the detector found on this keyframe.
 */
export function rateObservations(observations: readonly TrackObservation[], scale: readonly TrackObservation[] = observations): Map<number, number> {
  const maxOf = (f: (o: TrackObservation) => number) => Math.max(1e-9, ...scale.map(f));
  const largest = Math.max(FULL_SIZE_AREA, maxOf((o) => boxArea(o.box)));
  const found = scale.filter((o) => !o.held);
  const largestFound = found.length > 0 ? Math.max(FULL_SIZE_AREA, ...found.map((o) => boxArea(o.box))) : largest;
  const sharpest = maxOf((o) => o.focus);
  const busiest = maxOf((o) => o.motion);
  const w = SELECTION_WEIGHTS;
  const share = (value: number, max: number) => Math.min(1, value / max);
  const ratings = new Map<number, number>();
  for (const o of observations) {
    const centre = boxCentre(o.box);
    const centrality = Math.max(0, 1 - Math.hypot(centre.x - 0.5, centre.y - 0.5) / Math.SQRT1_2);
    const rating =
      w.size * share(boxArea(o.box), largest) +
      w.centrality * centrality +
      w.focus * share(o.focus, sharpest) +
      w.motion * share(o.motion, busiest) +
      w.confidence * Math.min(1, Math.max(0, o.confidence));
    ratings.set(o.id, rating * Math.min(1, boxArea(o.box) / largestFound / BACKGROUND_SIZE_SHARE));
  }
  return ratings;
}

export class SubjectSelector {
  private readonly prominence = new Map<number, number>();
  private readonly chosen = new Set<number>();

  /** one keyframe: the live tracks observed; returns each with its prominence and whether it is a subject */
  update(observations: readonly TrackObservation[]): SelectedTrack[] {
    const live = new Set(observations.map((o) => o.id));
    for (const id of [...this.prominence.keys()]) {
      if (!live.has(id)) {
        this.prominence.delete(id);
        this.chosen.delete(id);
      }
    }
    // the tracks that can be chosen set the scale: a large, sharp or busy box that is only a guess
    // (a pattern taken for an umbrella at 0.35) would otherwise shrink the subject's rating against
    // the people behind it, and they were chosen beside it
    const choosable = observations.filter((o) => o.confidence >= SUBJECT_CONFIDENCE || o.supported);
    for (const [id, rating] of rateObservations(observations, choosable.length > 0 ? choosable : observations)) {
      const previous = this.prominence.get(id);
      this.prominence.set(id, previous === undefined ? rating : previous + PROMINENCE_RESPONSE * (rating - previous));
    }
    const yielding = yieldingToPeople(choosable, (o) => this.prominence.get(o.id)!);
    const sure = new Set(choosable.filter((o) => !yielding.has(o.id)).map((o) => o.id));
    const best = Math.max(0, ...[...sure].map((id) => this.prominence.get(id)!));
    for (const [id, value] of this.prominence) {
      if (!sure.has(id)) this.chosen.delete(id);
      else if (value >= CHOOSE_RATIO * best) this.chosen.add(id);
      else if (value < KEEP_RATIO * best) this.chosen.delete(id);
    }
    return observations.map((o) => ({ id: o.id, prominence: this.prominence.get(o.id)!, chosen: this.chosen.has(o.id) }));
  }

  /** ids of the tracks chosen at the last update */
  get subjects(): ReadonlySet<number> {
    return this.chosen;
  }
}

/** `person`'s box lies inside `other`'s (rules 4 and 5; what a person stands in is not what they carry either: main-subjects.ts) */
export function personInside(person: { box: Box }, other: { box: Box }): boolean {
  return liesInside(person.box, other.box, INSIDE_SHARE);
}

/** `person` is in `vehicle` (its driver, a passenger), not standing before it (rule 4) */
function inVehicle(person: TrackObservation, vehicle: TrackObservation): boolean {
  const { y0, y1 } = vehicle.box;
  return personInside(person, vehicle) && person.box.y1 < y1 - FEET_SHARE * (y1 - y0);
}

/**
 * The tracks among `choosable` that a person among them comes before: a vehicle they are not in and
 * rate at least `PEOPLE_FIRST_SHARE` of (rule 4), an object whose box they stand inside, its backdrop (rule 5)
 */
function yieldingToPeople(choosable: readonly TrackObservation[], prominence: (o: TrackObservation) => number): Set<number> {
  const people = choosable.filter((o) => o.kind === 'person');
  const yields = (o: TrackObservation) =>
    o.kind === 'vehicle'
      ? people.some((p) => !inVehicle(p, o) && prominence(p) >= PEOPLE_FIRST_SHARE * prominence(o))
      : o.kind === 'object' && people.some((p) => personInside(p, o));
  return new Set(choosable.filter(yields).map((o) => o.id));
}
