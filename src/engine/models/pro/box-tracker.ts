import { blendBoxes, Box, iou } from './boxes';

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

export class BoxTracker {
  private readonly live: Track[] = [];
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
   * `continueScore`. Returns the live tracks after the update.
   */
  update(detections: readonly TrackedDetection[], supported: ReadonlySet<number> = new Set(), confirmed: ReadonlySet<TrackedDetection> = new Set()): readonly Track[] {
    const o = this.options;
    const pairs: { track: Track; detection: TrackedDetection; overlap: number }[] = [];
    for (const track of this.live) {
      for (const detection of detections) {
        if (detection.cls !== track.cls || detection.score < o.continueScore) continue;
        const overlap = iou(track.box, detection.box);
        if (overlap >= o.matchIou) pairs.push({ track, detection, overlap });
      }
    }
    pairs.sort((a, b) => b.overlap * b.detection.score - a.overlap * a.detection.score);
    const matchedTracks = new Set<Track>();
    const usedDetections = new Set<TrackedDetection>();
    for (const { track, detection } of pairs) {
      if (matchedTracks.has(track) || usedDetections.has(detection)) continue;
      matchedTracks.add(track);
      usedDetections.add(detection);
      track.box = blendBoxes(detection.box, track.box, o.boxResponse);
      track.bestScore = Math.max(track.bestScore, detection.score);
      track.hits++;
      track.misses = 0;
      track.unsupportedMisses = 0;
      track.opacity = 1;
    }
    for (const track of this.live) {
      if (matchedTracks.has(track)) continue;
      track.misses++;
      if (!supported.has(track.id)) track.unsupportedMisses++;
      const fading = track.unsupportedMisses - o.fullHold;
      track.opacity = fading <= 0 ? 1 : 1 - fading / (o.fadeHold + 1);
    }
    for (let i = this.live.length - 1; i >= 0; i--) {
      const track = this.live[i];
      if (track.opacity <= 0 || track.misses > o.supportedHold) this.live.splice(i, 1);
    }
    const remaining = detections
      .filter((d) => !usedDetections.has(d) && (d.score >= o.startScore || (confirmed.has(d) && d.score >= o.continueScore)))
      .sort((a, b) => b.score - a.score);
    for (const detection of remaining) {
      // a second box on an object already tracked is not a new subject
      if (this.live.some((t) => t.cls === detection.cls && iou(t.box, detection.box) >= o.matchIou)) continue;
      this.live.push({ id: this.nextId++, cls: detection.cls, box: detection.box, bestScore: detection.score, hits: 1, misses: 0, unsupportedMisses: 0, opacity: 1 });
    }
    return this.live;
  }
}
