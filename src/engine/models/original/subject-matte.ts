import { boxGate, GateShape } from '../pro/box-gate';
import { Track } from '../pro/box-tracker';
import { Box } from '../pro/boxes';
import { MainSubjects, PERSON } from '../pro/main-subjects';
import { regionKeepMask, regionsAgreeing } from '../pro/region-gate';

/**
 * `original`'s matte from its two models and the main subjects, all at one size:
 * - no main subject found (nothing the detector knows): ISNet's matte, as it is;
 * - chosen people: RVM's matte (a video-matting model trained on people) inside their boxes;
 * - chosen objects, and objects attached to a chosen person (the bike under a rider): ISNet's
 *   matte inside their boxes, and ISNet's regions overlapping a chosen person (what they hold or
 *   ride, which the detector may not name);
 * each kept only on its connected regions that lie in the subjects' boxes (region-gate.ts).
 */

/** people move between keyframes: their gate is looser than a still box's */
export const PERSON_GATE: GateShape = { margin: 0.15, minMargin: 0.03, feather: 0.05 };
/** an ISNet region around a person is kept when at least this share of it is RVM's person */
export const AGREEMENT_SHARE = 0.6;
export const OBJECT_GATE: GateShape = { margin: 0.1, minMargin: 0.02, feather: 0.04 };

export interface SubjectPlanes {
  width: number;
  height: number;
  /** RVM alpha, 0..1 */
  people: Float32Array;
  /** ISNet probability, 0..1 */
  salient: Float32Array;
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

/** whether ISNet's regions overlapping a chosen person are kept beside RVM's matte (see above) */
export interface SubjectMatteOptions {
  salientAroundPeople: boolean;
}

export const DEFAULT_SUBJECT_MATTE: SubjectMatteOptions = { salientAroundPeople: true };

export function subjectMatte(planes: SubjectPlanes, subjects: MainSubjects, options = DEFAULT_SUBJECT_MATTE): Float32Array {
  const { width, height } = planes;
  const chosen: Track[] = subjects.chosen;
  if (chosen.length === 0) return planes.salient;
  const people = chosen.filter((t) => t.cls === PERSON).map((t) => t.box);
  const objects = [...chosen.filter((t) => t.cls !== PERSON), ...subjects.attached].map((t) => t.box);
  const out = new Float32Array(width * height);
  if (people.length) {
    const person = keep(planes.people, people, width, height, PERSON_GATE);
    out.set(person);
    if (options.salientAroundPeople) {
      // ISNet's regions around the people that are mostly the person RVM sees: the person with
      // what they carry or ride; a region mostly outside RVM's person is background to ISNet's eye too
      const around = keep(planes.salient, people, width, height, PERSON_GATE);
      const agreeing = regionsAgreeing(around, person, width, height, AGREEMENT_SHARE);
      for (let i = 0; i < out.length; i++) out[i] = Math.max(out[i], around[i] * agreeing[i]);
    }
  }
  if (objects.length) {
    const matte = keep(planes.salient, objects, width, height, OBJECT_GATE);
    for (let i = 0; i < out.length; i++) if (matte[i] > out[i]) out[i] = matte[i];
  }
  return out;
}
