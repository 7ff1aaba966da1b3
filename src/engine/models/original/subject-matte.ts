import { boxGate, GateShape } from '../pro/box-gate';
import { Track } from '../pro/box-tracker';
import { Box, intersectionArea } from '../pro/boxes';
import { MainSubjects, PERSON } from '../pro/main-subjects';
import { boxCover, gateSize, keepRegions, REGION_INSIDE_SHARE, regionKeepMask } from '../pro/region-gate';
import { SUBJECT_CONFIDENCE } from '../pro/subject-selector';
import { VEHICLES } from '../pro/track-chooser';
import { resizePlane } from '../image/resample';
import { othersApart, subjectRegion } from '../pro/subject-crop';

/** read once: a global looked up in a per-pixel loop is slow under Jest (docs/testing.md) */
const { max, min } = Math;

/**
 * `original`'s matte from its two models and the main subjects, all at one size:
 * - no main subject found yet: the people RVM sees, if it sees any (the detector misses people in
 *   odd poses for a few frames), else ISNet's salient object, as it is;
 * - chosen people: RVM's matte (a video-matting model trained on people), kept on its connected
 *   regions that lie in their boxes or in the previous frame's matte (`subjectRegions`): RVM's
 *   matte is coherent from frame to frame, the boxes move only on keyframes. Measured before ->
 *   after that rule (the boxes alone, with a box gate; whole clips): rollerblade 0.798 -> 0.853
 *   (a skater leaving the box between keyframes was cut out), swing 0.812 -> 0.816,
 *   breakdance-flare 0.822 -> 0.837;
 * - chosen objects, and objects attached to a chosen person (the bike under a rider): ISNet's
 *   matte inside their boxes, on its connected regions that lie in the boxes (region-gate.ts).
 *
 * Measured and left out (bench:davis, whole clips): also keeping ISNet's regions around a chosen
 * person where at least 60% of the region is RVM's person (to catch what they carry that the
 * detector does not name) gave kite-walk 0.606 -> 0.662 and bmx-trees 0.507, but rollerblade
 * 0.775 -> 0.749, swing 0.812 -> 0.785, breakdance-flare 0.822 -> 0.800 and more flicker on all
 * (dtSSD +3 to +4): ISNet's extra regions are as often background as a carried object.
 */

/** share of the frame RVM's matte must cover for people to be in sight */
export const PEOPLE_IN_SIGHT = 0.01;
export const OBJECT_GATE: GateShape = { margin: 0.1, minMargin: 0.02, feather: 0.04 };

export interface SubjectPlanes {
  width: number;
  height: number;
  /** RVM alpha, 0..1 */
  people: Float32Array;
  /** ISNet probability, 0..1 */
  salient: Float32Array;
  /** the previous frame's matte, 0..1, when there was one */
  previous?: Float32Array;
}

/** what is not chosen, whose boxes explain RVM's regions in them (`subjectRegions`) */
export interface NotChosen {
  /** people not chosen whom the detector found on its last keyframe: their box explains the part of a region inside it */
  people: readonly Box[];
  /** people not chosen held through the detector's misses: their box explains as well, but it is where they were, not where they are */
  heldPeople: readonly Box[];
  /** vehicles the detector is sure of, apart from the chosen people: their box explains a region lying wholly in it */
  vehicles: readonly Box[];
}

/**
 * Share of a region inside a sure vehicle's box from which the box explains it: RVM's matte of a car
 * it takes for a person lies in the car's box, a person before a car stands out of its box (head,
 * legs). Per pixel, the box had cut a skater passing before a car out of the matte while her box
 * lagged behind her between keyframes (own composite of DAVIS rollerblade over car-roundabout,
 * `human` 0.916 -> 0.499, `light` 0.826 -> 0.647).
 */
const WHOLLY_IN_VEHICLE = 0.9;

/**
 * The regions of `matte` that belong to the subjects: those lying enough inside their boxes, or
 * enough inside the previous frame's matte. Boxes are updated on keyframes only; a subject moving
 * fast leaves its box between them, and its region is still the one the last frame kept. The
 * previous frame does not vouch for pixels inside the box of someone not chosen
 * (`notChosen.people`): a person kept once (chosen, then dropped for a more prominent subject) would
 * otherwise stay in the matte for as long as they stand still. Only where the detector found them on
 * its last keyframe: a box held through its misses (`notChosen.heldPeople`) is where they were, and a
 * chosen person moving into it was cut out (a skater passing a figure in graffiti that NanoDet had
 * taken for a person and then missed: own composite of DAVIS rollerblade over bmx-trees, `light`
 * 0.450 -> 0.465). Nor does it vouch for a region lying wholly in the box of a vehicle the detector is
 * sure of, apart from the chosen people (`notChosen.vehicles`).
 *
 * Also the largest region that no box explains (it lies neither in the chosen boxes, nor the
 * previous matte, nor the box of anyone or anything not chosen) when it is at least as large as every region
 * kept: the detector missed the main subject (a person seen from behind or side-on is now and then
 * no person to NanoDet) while it found the people behind them, or a stale box holds a passer-by
 * where the subject was. `human` bystanders composite 0.931 -> 0.961; `original` on a person
 * turning 0.970 -> 0.980, over real passers-by 0.840 -> 0.968, DAVIS unchanged. Not a region at
 * the frame's left or right edge: it may be coming in, and the next keyframe's detector judges it.
 * `light`'s small RVM took a red car driving in at the edge for a person, and kept it as the
 * largest region from when it was as large as the dancer (own composites of DAVIS people over
 * car-roundabout, `light`: breakdance-flare 0.780 -> 0.797, kite-walk 0.500 -> 0.522; requiring it
 * to be 1.5 times as large only put it off by a few frames as it grew: 0.791, 0.510).
 */
export function subjectRegions(matte: Float32Array, width: number, height: number, boxes: readonly Box[], previous?: Float32Array, notChosen: NotChosen = { people: [], heldPeople: [], vehicles: [] }): Float32Array {
  const small = gateSize(width, height);
  const before = previous ? resizePlane({ width, height, data: previous }, small.width, small.height) : undefined;
  const foundPeople = boxCover(notChosen.people, small.width, small.height);
  const heldPeople = boxCover(notChosen.heldPeople, small.width, small.height);
  const inVehicles = boxCover(notChosen.vehicles, small.width, small.height);
  const vouched = boxCover(boxes, small.width, small.height);
  if (before) for (let i = 0; i < vouched.length; i++) if (!vouched[i] && before[i] >= 0.5 && !foundPeople[i]) vouched[i] = 1;
  const inOthers = foundPeople.map((p, i) => p | heldPeople[i] | inVehicles[i]);
  return keepRegions(matte, width, height, [vouched, inOthers, sideEdges(small.width, small.height), inVehicles], (regions) => {
    const kept = regions.map((r) => r.counts[0] >= REGION_INSIDE_SHARE * r.size && r.counts[3] < WHOLLY_IN_VEHICLE * r.size);
    const largestKept = max(0, ...regions.filter((_, i) => kept[i]).map((r) => r.size));
    let unexplained = -1;
    regions.forEach((r, i) => {
      if (!kept[i] && r.counts[1] < REGION_INSIDE_SHARE * r.size && r.counts[2] === 0 && r.size >= largestKept && (unexplained < 0 || r.size > regions[unexplained].size)) unexplained = i;
    });
    if (unexplained >= 0) kept[unexplained] = true;
    return kept;
  });
}

/** a plane marking the first and last column */
function sideEdges(width: number, height: number): Uint8Array {
  const edges = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) edges[y * width] = edges[y * width + width - 1] = 1;
  return edges;
}

/** share of the plane at 0.5 or more */
function coverage(plane: Float32Array): number {
  let count = 0;
  for (let i = 0; i < plane.length; i++) if (plane[i] >= 0.5) count++;
  return count / plane.length;
}

function gateOf(boxes: readonly Box[], width: number, height: number, shape: GateShape): Float32Array {
  const gate = new Float32Array(width * height);
  for (const box of boxes) {
    const one = boxGate(box, width, height, shape);
    for (let i = 0; i < gate.length; i++) if (one[i] > gate[i]) gate[i] = one[i];
  }
  return gate;
}

function keep(plane: Float32Array, boxes: readonly Box[], width: number, height: number, shape: GateShape): Float32Array {
  const regions = regionKeepMask(plane, width, height, boxes);
  const gate = gateOf(boxes, width, height, shape);
  const out = new Float32Array(plane.length);
  for (let i = 0; i < out.length; i++) out[i] = plane[i] * min(regions[i], gate[i]);
  return out;
}

/** objects among the main subjects: chosen ones that are not people, and what chosen people carry or ride */
export function objectTracks(subjects: MainSubjects): Track[] {
  return [...subjects.chosen.filter((t) => t.cls !== PERSON), ...subjects.attached];
}

/**
 * Whether the matte may read RVM's people plane: while no subject is chosen (people RVM sees are
 * kept) and while a person is among the chosen. With objects alone chosen it is read on keyframes
 * only, by the detector's checks (rvm-on-demand.ts).
 */
export function peopleMayMatter(subjects: MainSubjects): boolean {
  return subjects.chosen.length === 0 || subjects.chosen.some((t) => t.cls === PERSON);
}

/**
 * Whether the matte reads ISNet's plane for these subjects, and the part of the frame ISNet should
 * see (undefined: all of it). As for `pro` (subject-crop.ts): with other objects in sight, ISNet is
 * shown the region around the subjects, so that they are what is salient; with nothing else in
 * sight, the whole frame (more context, better edges: car-slide 0.957 whole, 0.890 cropped).
 */
export function salientNeeds(subjects: MainSubjects, people: Float32Array): { read: boolean; region?: Box } {
  if (subjects.chosen.length === 0) return { read: coverage(people) < PEOPLE_IN_SIGHT };
  if (objectTracks(subjects).length === 0) return { read: false };
  const kept = [...subjects.chosen, ...subjects.attached];
  const others = subjects.all.filter((t) => !kept.includes(t)).map((t) => t.box);
  const boxes = kept.map((t) => t.box);
  return { read: true, region: othersApart(others, boxes) ? subjectRegion(boxes) : undefined };
}

/** RVM's matte kept on the chosen people's regions (`subjectRegions`); zero where no person is chosen */
function chosenPeopleMatte(planes: Omit<SubjectPlanes, 'salient'>, subjects: MainSubjects): Float32Array {
  const { width, height } = planes;
  const out = new Float32Array(width * height);
  const people = chosenPeopleBoxes(subjects);
  if (people.length === 0) return out;
  const regions = subjectRegions(planes.people, width, height, people, planes.previous, othersThanChosen(subjects, people));
  for (let i = 0; i < out.length; i++) if (regions[i] !== 0) out[i] = planes.people[i] * regions[i];
  return out;
}

/**
 * The boxes of what is not chosen, in which RVM's regions are not the chosen people's (`subjectRegions`):
 * people not chosen, and vehicles the detector is sure of that lie apart from the chosen people.
 * RVM at `light`'s 320 px took a red car driving in at the frame's edge for a person; as the
 * largest region no box explained it was kept, and the previous frame's matte then vouched for it
 * frame after frame, after the detector had boxed it as a car (own composites of DAVIS people over
 * car-roundabout, `light`: breakdance-flare 0.757 -> 0.780). A vehicle box that overlaps a chosen
 * person's is not one of them: a person before a car stands in its box.
 */
function othersThanChosen(subjects: MainSubjects, chosenPeople: readonly Box[]): NotChosen {
  const notChosen = subjects.all.filter((t) => !subjects.chosen.includes(t));
  const apart = (t: Track) => VEHICLES.has(t.cls) && t.bestScore >= SUBJECT_CONFIDENCE && chosenPeople.every((p) => intersectionArea(p, t.box) === 0);
  const people = notChosen.filter((t) => t.cls === PERSON);
  const boxesOf = (tracks: Track[]) => tracks.map((t) => t.box);
  return { people: boxesOf(people.filter((t) => t.misses === 0)), heldPeople: boxesOf(people.filter((t) => t.misses > 0)), vehicles: boxesOf(notChosen.filter(apart)) };
}

const chosenPeopleBoxes = (subjects: MainSubjects): Box[] => subjects.chosen.filter((t) => t.cls === PERSON).map((t) => t.box);

/**
 * `human`'s matte: the chosen people's part of RVM's matte (a dancer, not the crowd around them),
 * and a larger region no box explains (`subjectRegions`); every person RVM sees while no person is
 * chosen yet (the detector misses people in odd poses).
 */
export function peopleMatte(planes: Omit<SubjectPlanes, 'salient'>, subjects: MainSubjects): Float32Array {
  return chosenPeopleBoxes(subjects).length ? chosenPeopleMatte(planes, subjects) : planes.people;
}

export function subjectMatte(planes: SubjectPlanes, subjects: MainSubjects): Float32Array {
  const { width, height } = planes;
  if (subjects.chosen.length === 0) return coverage(planes.people) >= PEOPLE_IN_SIGHT ? planes.people : planes.salient;
  const objects = objectTracks(subjects).map((t) => t.box);
  const out = chosenPeopleMatte(planes, subjects);
  if (objects.length) {
    const matte = keep(planes.salient, objects, width, height, OBJECT_GATE);
    for (let i = 0; i < out.length; i++) if (matte[i] > out[i]) out[i] = matte[i];
  }
  return out;
}
