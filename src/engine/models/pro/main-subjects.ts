import { downsampledLuma } from '../temporal/keyframe-propagator';
import { BoxTracker, Track } from './box-tracker';
import { Box, boxArea, intersectionArea, iou } from './boxes';
import { NanodetDetector } from './nanodet-detector';
import { SubjectSelector, TrackObservation } from './subject-selector';
import { classIndex } from './vocabulary';

export const PERSON = classIndex('person');
/** focus and motion are measured on luma at 1/`MEASURE_DOWNSAMPLING` of the frame */
const MEASURE_DOWNSAMPLING = 2;
/** an object whose box lies this much inside a chosen person's box is carried by them (a bike, a board, a dog on a lead) */
const ATTACHED_SHARE = 0.3;
/** a box of another class overlapping a person's this much is the person again */
const SAME_OBJECT_IOU = 0.6;
/** a person track is confirmed by RVM when its matte covers this share of the box (a standing person fills ~40-60%) */
const PERSON_SUPPORT = 0.2;
/** an object attached to a person is kept from this detector confidence (a low-scored box is often the person again) */
const ATTACHED_CONFIDENCE = 0.5;

export interface MainSubjects {
  /** chosen tracks (the video's main subjects) */
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
  private readonly tracker = new BoxTracker();
  private readonly selector = new SubjectSelector();
  private previousLuma?: { width: number; height: number; data: Float32Array };
  private current: MainSubjects = { chosen: [], attached: [], all: [] };

  constructor(
    private readonly detector: NanodetDetector,
    /** classes considered (all the detector knows when undefined) */
    private readonly classes?: ReadonlySet<number>,
  ) {}

  get subjects(): MainSubjects {
    return this.current;
  }

  /**
   * One keyframe at the video's aspect ratio. `people`: RVM's alpha of the same frame (same
   * size), which confirms a person track whose box it fills enough of.
   */
  async observe(rgb: Uint8Array, width: number, height: number, people?: Float32Array): Promise<MainSubjects> {
    const found = await this.detector.detect(rgb, width, height, { box: { x0: 0, y0: 0, x1: 1, y1: 1 }, aspect: width / height });
    const detections = found.filter((d) => !this.classes || this.classes.has(d.cls));
    const live = this.tracker.update(detections);
    // a box of another class over a person's box is that person under a second label (NanoDet
    // sometimes calls a dancer a dog): it is not a second subject
    const tracks = live.filter((t) => t.cls === PERSON || !live.some((p) => p.cls === PERSON && iou(p.box, t.box) >= SAME_OBJECT_IOU));
    const luma = downsampledLuma(rgb, width, height, MEASURE_DOWNSAMPLING);
    const observations: TrackObservation[] = tracks.map((track) => ({
      id: track.id,
      box: track.box,
      confidence: track.bestScore,
      focus: sharpnessIn(luma, track.box),
      motion: this.previousLuma ? changeIn(luma.data, this.previousLuma.data, luma.width, luma.height, track.box) : 0,
      supported: track.cls === PERSON && people !== undefined && fillIn(people, width, height, track.box) >= PERSON_SUPPORT,
    }));
    this.previousLuma = luma;
    const rated = this.selector.update(observations);
    const chosenIds = new Set(rated.filter((r) => r.chosen).map((r) => r.id));
    const chosen = tracks.filter((t) => chosenIds.has(t.id));
    const chosenPeople = chosen.filter((t) => t.cls === PERSON);
    const attached = tracks.filter((t) => !chosenIds.has(t.id) && t.cls !== PERSON && t.bestScore >= ATTACHED_CONFIDENCE && chosenPeople.some((p) => intersectionArea(p.box, t.box) >= ATTACHED_SHARE * boxArea(t.box)));
    this.current = { chosen, attached, all: tracks };
    return this.current;
  }
}

function pixelRange(box: Box, width: number, height: number) {
  return {
    x0: Math.max(1, Math.floor(box.x0 * width)),
    x1: Math.min(width - 1, Math.ceil(box.x1 * width)),
    y0: Math.max(1, Math.floor(box.y0 * height)),
    y1: Math.min(height - 1, Math.ceil(box.y1 * height)),
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
      sum += Math.abs(4 * data[i] - data[i - 1] - data[i + 1] - data[i - width] - data[i + width]);
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
  for (let y = r.y0; y < r.y1; y++) for (let x = r.x0, i = y * width + r.x0; x < r.x1; x++, i++, count++) sum += Math.abs(current[i] - previous[i]);
  return count ? sum / count : 0;
}
