import { BoxTracker, Track } from './box-tracker';
import { boxArea, intersectionArea } from './boxes';
import { NanodetDetector } from './nanodet-detector';
import { distinctObjects, PERSON, TrackChooser } from './track-chooser';

export { PERSON };
/** an object whose box lies this much inside a chosen person's box is carried by them (a bike, a board, a dog on a lead) */
const ATTACHED_SHARE = 0.3;
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
  private readonly chooser = new TrackChooser();
  private current: MainSubjects = { chosen: [], attached: [], all: [] };

  constructor(private readonly detector: NanodetDetector) {}

  get subjects(): MainSubjects {
    return this.current;
  }

  /**
   * One keyframe at the video's aspect ratio. `people`: RVM's alpha of the same frame (same
   * size), which confirms a person track whose box it fills enough of.
   */
  async observe(rgb: Uint8Array, width: number, height: number, people?: Float32Array): Promise<MainSubjects> {
    const detections = await this.detector.detect(rgb, width, height, { box: { x0: 0, y0: 0, x1: 1, y1: 1 }, aspect: width / height });
    const tracks = distinctObjects(this.tracker.update(detections));
    const chosenIds = this.chooser.choose(rgb, width, height, tracks, people);
    const chosen = tracks.filter((t) => chosenIds.has(t.id));
    const chosenPeople = chosen.filter((t) => t.cls === PERSON);
    const attached = tracks.filter((t) => !chosenIds.has(t.id) && t.cls !== PERSON && t.bestScore >= ATTACHED_CONFIDENCE && chosenPeople.some((p) => intersectionArea(p.box, t.box) >= ATTACHED_SHARE * boxArea(t.box)));
    this.current = { chosen, attached, all: tracks };
    return this.current;
  }
}

