import { blendBoxes, Box, boxCentre, expandBox, iou, translateBox } from './boxes';

/**
 * Keeps the identity of detected subjects across keyframes. Each keyframe's detections are
 * matched to the tracks' predicted boxes (moved with the subject's motion between keyframes),
 * greedily from the best pair: IoU times the detection's score, so that of two boxes on one
 * subject the loose one that fits a drifted prediction best does not win over a confident tight
 * one (the two-dogs composite: a 0.10 box of the dog with the car behind it against the dog's own
 * 0.30 one; "the biggest dog" 0.738 -> 0.765). A confident unmatched detection starts a track. A track the
 * detector misses is held: fully for a few keyframes, then fading out; a track the segmentation
 * still sees where it was predicted is held longer, since the detector drops objects that are
 * partly out of the frame or briefly occluded.
 *
 * Where the caller gives each keyframe's frame number, each track also keeps its motion (`Motion`),
 * and a sure detection that no track's last box finds is matched to the track whose motion carries
 * it there: with keyframes 8 or 16 frames apart, a small person walking across the frame moves out
 * of their last box before the next detection, and became a new track on every keyframe, rated
 * afresh each time.
 */

export interface TrackerOptions {
  /** a detection starts a track at this score or above */
  startScore: number;
  /** a detection continues a track (of its class, overlapping the prediction) at this score or above */
  continueScore: number;
  /** minimum IoU between a track's predicted box and a detection to match */
  matchIou: number;
  /** missed keyframes held at full opacity */
  fullHold: number;
  /** further missed keyframes over which the track fades out, then ends */
  fadeHold: number;
  /** missed keyframes a track is held at most while segmentation still supports it */
  supportedHold: number;
  /** weight of the detected box against the predicted one when they match */
  boxResponse: number;
}

export const DEFAULT_TRACKER_OPTIONS: TrackerOptions = {
  startScore: 0.35,
  continueScore: 0.1,
  matchIou: 0.3,
  fullHold: 2,
  fadeHold: 2,
  supportedHold: 12,
  boxResponse: 0.7,
};

export interface TrackedDetection {
  cls: number;
  score: number;
  box: Box;
}

export interface Track {
  readonly id: number;
  readonly cls: number;
  box: Box;
  /** best detector score seen */
  bestScore: number;
  /** keyframes with a matching detection */
  hits: number;
  /** consecutive keyframes without one */
  misses: number;
  /** consecutive misses not backed by segmentation */
  unsupportedMisses: number;
  /** 0..1: how much of the track's matte is shown (fades while held without detections) */
  opacity: number;
}

/** a track's motion, where the tracker is told the frame numbers */
interface Motion {
  /** the box's shift a frame (normalised units), measured between its sure matches; 0 until then */
  dx: number;
  dy: number;
  /** whether a sure match has measured it */
  measured: boolean;
  /** the frame of its last match, where its box was last set */
  seenAt: number;
}

/**
 * Only detections scored this high are matched through a track's motion, and only they measure it:
 * a box the detector is unsure of moves with its noise (DAVIS bmx-trees' branches, boxed as people at
 * 0.2-0.49 in a new place on every keyframe, sent a track across the frame onto the subject)
 */
const MOTION_SCORE = 0.5;

/** weight of the motion measured at a match against the track's earlier motion */
const MOTION_RESPONSE = 0.5;

/** how far around its box (a share of its size, each side) a track seen once is looked for */
const SEARCH_MARGIN = 0.5;

/** the tracks and detections matched so far on a keyframe */
interface Matched {
  tracks: Set<Track>;
  detections: Set<TrackedDetection>;
}

export class BoxTracker {
  private readonly live: Track[] = [];
  private readonly motion = new Map<number, Motion>();
  private nextId = 1;

  constructor(private readonly options: TrackerOptions = DEFAULT_TRACKER_OPTIONS) {}

  get tracks(): readonly Track[] {
    return this.live;
  }

  /** whether `detection` would start a track, or could continue one of its class, at the next update */
  couldTrack(detection: TrackedDetection): boolean {
    const { startScore, continueScore } = this.options;
    return detection.score >= startScore || (detection.score >= continueScore && this.live.some((t) => t.cls === detection.cls));
  }

  /** the tracks become `tracks` (another tracker's, at the same frame: a second pass over a clip) */
  restore(tracks: readonly Track[]): void {
    this.live.splice(0, this.live.length, ...tracks.map((t) => ({ ...t, box: { ...t.box } })));
  }

  /** moves a track's box (its predicted position between keyframes) */
  move(id: number, box: Box): void {
    const track = this.live.find((t) => t.id === id);
    if (track) track.box = box;
  }

  /**
   * One keyframe. `supported` holds the ids of tracks the segmentation still finds at their
   * predicted box; `confirmed`, detections the segmentation finds, which start a track from
   * `continueScore`. `frame`: the keyframe's frame number, from which tracks are predicted with
   * their motion (absent: boxes stay where they were, or where `move` put them). Returns the live
   * tracks after the update.
   */
  update(detections: readonly TrackedDetection[], supported: ReadonlySet<number> = new Set(), confirmed: ReadonlySet<TrackedDetection> = new Set(), frame?: number): readonly Track[] {
    const o = this.options;
    const matched: Matched = { tracks: new Set(), detections: new Set() };
    this.associate(detections, matched, (track, detection) => iou(track.box, detection.box), (track) => track.box, frame);
    // a track its last box no longer finds is looked for where its motion took it; matched there
    // first, a subject swinging back was taken from the person its prediction ran into
    if (frame !== undefined) {
      const predicted = new Map(this.live.filter((track) => !matched.tracks.has(track)).map((track) => [track, this.predict(track, frame)]));
      const overlap = (track: Track, detection: TrackedDetection) => (detection.score >= MOTION_SCORE ? this.movedOverlap(track, predicted.get(track)!, detection.box) : 0);
      this.associate(detections, matched, overlap, (track) => predicted.get(track)!, frame);
    }
    for (const track of this.live) {
      if (matched.tracks.has(track)) continue;
      track.misses++;
      if (!supported.has(track.id)) track.unsupportedMisses++;
      const fading = track.unsupportedMisses - o.fullHold;
      track.opacity = fading <= 0 ? 1 : 1 - fading / (o.fadeHold + 1);
    }
    for (let i = this.live.length - 1; i >= 0; i--) {
      const track = this.live[i];
      if (track.opacity <= 0 || track.misses > o.supportedHold) {
        this.live.splice(i, 1);
        this.motion.delete(track.id);
      }
    }
    const remaining = detections
      .filter((d) => !matched.detections.has(d) && (d.score >= o.startScore || (confirmed.has(d) && d.score >= o.continueScore)))
      .sort((a, b) => b.score - a.score);
    for (const detection of remaining) {
      // a second box on an object already tracked is not a new subject
      if (this.live.some((t) => t.cls === detection.cls && iou(t.box, detection.box) >= o.matchIou)) continue;
      const id = this.nextId++;
      this.live.push({ id, cls: detection.cls, box: detection.box, bestScore: detection.score, hits: 1, misses: 0, unsupportedMisses: 0, opacity: 1 });
      if (frame !== undefined) this.motion.set(id, { dx: 0, dy: 0, measured: false, seenAt: frame });
    }
    return this.live;
  }

  /**
   * Matches the tracks and detections not matched yet, greedily from the best pair by `overlapOf`
   * times the detection's score; a matched track's box moves to the detection's from `from` (its
   * last box, or where its motion took it)
   */
  private associate(detections: readonly TrackedDetection[], matched: Matched, overlapOf: (track: Track, detection: TrackedDetection) => number, from: (track: Track) => Box, frame?: number): void {
    const o = this.options;
    const pairs: { track: Track; detection: TrackedDetection; overlap: number }[] = [];
    for (const track of this.live) {
      if (matched.tracks.has(track)) continue;
      for (const detection of detections) {
        if (matched.detections.has(detection) || detection.cls !== track.cls || detection.score < o.continueScore) continue;
        const overlap = overlapOf(track, detection);
        if (overlap >= o.matchIou) pairs.push({ track, detection, overlap });
      }
    }
    pairs.sort((a, b) => b.overlap * b.detection.score - a.overlap * a.detection.score);
    for (const { track, detection } of pairs) {
      if (matched.tracks.has(track) || matched.detections.has(detection)) continue;
      matched.tracks.add(track);
      matched.detections.add(detection);
      if (frame !== undefined) this.measureMotion(track, detection, frame);
      track.box = blendBoxes(detection.box, from(track), o.boxResponse);
      track.bestScore = Math.max(track.bestScore, detection.score);
      track.hits++;
      track.misses = 0;
      track.unsupportedMisses = 0;
      track.opacity = 1;
    }
  }

  /**
   * How well `box` fits `track` moved on to its `prediction`; a track seen once, whose
   * motion cannot be known yet, is looked for around its box, both boxes grown by `SEARCH_MARGIN` of
   * their size on each side. Only then: a track matched several times on unsure boxes, its motion
   * never measured, caught the BMX bike behind a walker once the board it followed was missed.
   */
  private movedOverlap(track: Track, prediction: Box, box: Box): number {
    const around = track.hits > 1 ? 0 : iou(expandBox(track.box, SEARCH_MARGIN), expandBox(box, SEARCH_MARGIN));
    return Math.max(iou(prediction, box), around);
  }

  /** where `track`'s box is at `frame`, moved on with its motion since its last match */
  private predict(track: Track, frame: number): Box {
    const motion = this.motion.get(track.id);
    if (!motion) return track.box;
    const frames = frame - motion.seenAt;
    return translateBox(track.box, motion.dx * frames, motion.dy * frames);
  }

  /** `track` matched `detection` at `frame`: a sure detection's shift since the last match refines its motion */
  private measureMotion(track: Track, detection: TrackedDetection, frame: number): void {
    const motion = this.motion.get(track.id) ?? { dx: 0, dy: 0, measured: false, seenAt: frame };
    const frames = frame - motion.seenAt;
    if (detection.score < MOTION_SCORE || frames <= 0) {
      this.motion.set(track.id, { ...motion, seenAt: frame });
      return;
    }
    const from = boxCentre(track.box);
    const to = boxCentre(detection.box);
    // the first measurement is taken whole; later ones refine it
    const response = motion.measured ? MOTION_RESPONSE : 1;
    const mix = (old: number, measured: number) => old + response * (measured - old);
    this.motion.set(track.id, { dx: mix(motion.dx, (to.x - from.x) / frames), dy: mix(motion.dy, (to.y - from.y) / frames), measured: true, seenAt: frame });
  }
}
