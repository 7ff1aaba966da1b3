import { boxGate, GateShape } from '../pro/box-gate';
import { Track } from '../pro/box-tracker';
import { Box } from '../pro/boxes';
import { MainSubjects, PERSON } from '../pro/main-subjects';
import { regionKeepMask } from '../pro/region-gate';

/**
 * `original`'s matte from its two models and the main subjects, all at one size:
 * - no main subject found yet: the people RVM sees, if it sees any (the detector misses people in
 *   odd poses for a few frames), else ISNet's salient object, as it is;
 * - chosen people: RVM's matte (a video-matting model trained on people) inside their boxes;
 * - chosen objects, and objects attached to a chosen person (the bike under a rider): ISNet's
 *   matte inside their boxes;
 * each kept only on its connected regions that lie in the subjects' boxes (region-gate.ts).
 *
 * Measured and left out (bench:davis, whole clips): also keeping ISNet's regions around a chosen
 * person where at least 60% of the region is RVM's person (to catch what they carry that the
 * detector does not name) gave kite-walk 0.606 -> 0.662 and bmx-trees 0.507, but rollerblade
 * 0.775 -> 0.749, swing 0.812 -> 0.785, breakdance-flare 0.822 -> 0.800 and more flicker on all
 * (dtSSD +3 to +4): ISNet's extra regions are as often background as a carried object.
 */

/** people move between keyframes: their gate is looser than a still box's */
export const PERSON_GATE: GateShape = { margin: 0.15, minMargin: 0.03, feather: 0.05 };
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
  for (let i = 0; i < out.length; i++) out[i] = plane[i] * Math.min(regions[i], gate[i]);
  return out;
}

export function subjectMatte(planes: SubjectPlanes, subjects: MainSubjects): Float32Array {
  const { width, height } = planes;
  const chosen: Track[] = subjects.chosen;
  if (chosen.length === 0) return coverage(planes.people) >= PEOPLE_IN_SIGHT ? planes.people : planes.salient;
  const people = chosen.filter((t) => t.cls === PERSON).map((t) => t.box);
  const objects = [...chosen.filter((t) => t.cls !== PERSON), ...subjects.attached].map((t) => t.box);
  const out = new Float32Array(width * height);
  if (people.length) {
    out.set(keep(planes.people, people, width, height, PERSON_GATE));
  }
  if (objects.length) {
    const matte = keep(planes.salient, objects, width, height, OBJECT_GATE);
    for (let i = 0; i < out.length; i++) if (matte[i] > out[i]) out[i] = matte[i];
  }
  return out;
}
