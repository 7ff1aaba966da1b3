import { Matte, RgbFrame, SegmentationModel, SegmentationSession, SessionOptions } from '../../types';
import { toAlphaBytes } from '../image/resample';
import { emptyMatte, isBlank } from '../image/blank-frame';
import { IsnetSegmenter, isnetInputSizeFor } from '../isnet/isnet-segmenter';
import { KEYFRAME_INTERVAL, peopleRvmFills } from './main-subjects';
import { pictureForSquareModel, withinPicture } from '../image/picture-bars';
import { RvmMatter } from '../rvm/rvm-matter';
import { SceneCutDetector } from '../rvm/scene-cut';
import { PeopleJumps } from '../rvm/people-jump';
import { RvmGeometry } from '../rvm/rvm-model-file';
import { openPeopleRvm } from '../rvm/people-rvm';
import { downsampledLuma, KeyframePropagator } from '../temporal/keyframe-propagator';
import { LumaImage } from '../temporal/subject-motion';
import { SalientInterval } from '../temporal/salient-interval';
import { maskIou } from '../../quality/metrics';
import { blendInGate, DEFAULT_GATE, gatePlane, massInBox } from './box-gate';
import { BoxTracker, DEFAULT_TRACKER_OPTIONS, Track } from './box-tracker';
import { Box, boxArea, expandBox, intersectionArea, translateBox } from './boxes';
import { Detection, nonMaxSuppression } from './nanodet-decode';
import { NanodetDetector } from './nanodet-detector';
import { PeopleMatter } from './people-matter';
import { peopleRvmConfirms, PERSON } from './track-chooser';
import { cropRgb, foregroundExtent, inPixelRect, othersApart, pastePlane, subjectRegion, toPixelRect } from './subject-crop';
import { classIndex, normalise } from './vocabulary';
import { parsePrompt, promptSurveysWholeClip, SubjectQuery } from './prompt-grammar';
import { ObservedTrack } from './track-evidence';
import { withoutTheirColours } from './colour-apart';
import { SurveyedProSession } from './surveyed-session';
import { InOrder } from '../in-order';
import { OriginalModel, OriginalSession } from '../original/original-model';

/** read once: a global looked up in a per-pixel loop is slow under Jest (docs/testing.md) */
const { max } = Math;

/** as in `original`: weight of a keyframe's fresh matte against the previous one moved to it */
const KEYFRAME_BLEND = 0.6;
const MOTION_DOWNSAMPLING = 4;
/** with people asked for, frames given before the oldest one's matte is awaited (as `original`'s) */
const PRO_FRAMES_IN_FLIGHT = 4;
/**
 * The survey of a prompt with attributes (surveyed-session.ts) mattes people in one pass of RVM, not
 * with the mirror image's second opinion the output's mattes take (people-rvm.ts): its mattes are
 * never shown, only read for the tracks' support and colours, whose shares over a whole segment the
 * pair's finer edges hardly move. Measured against the pair (AMD EPYC Zen 4 with VNNI, 60 frames;
 * IoU and leak of the output, CPU of both passes): red-blue "person wearing red jacket" 0.9477 and
 * 1.47% either way, 38.5 -> 34.1 s; "the woman in blue" 0.9054 and 0.17%, 41.1 -> 30.7 s; "the two
 * people" 0.9463, 38.5 -> 30.8 s; person-car "the person on the right" 0.9844 and 0.15%, 34.9 ->
 * 27.5 s. red-blue's survey alone 188-191 -> 118-126 ms a frame (344-362 -> 219-234 ms of CPU).
 */
const SURVEY_MIRRORED_PEOPLE = false;
/** a missed track is still "seen" while this share of its foreground remains in its box */
const SUPPORT_RATIO = 0.4;
const FULL_FRAME: Box = { x0: 0, y0: 0, x1: 1, y1: 1 };
/**
 * Between the detector's keyframes ISNet runs again once the shown subjects due for it (their
 * interval) hold this share of the shown subjects' box area: a small subject far off, whose moved
 * matte disagrees with ISNet's by a few pixels that are a large share of it, counts as changing
 * shape (salient-interval.ts) and would set ISNet's pace for them all. DAVIS car-roundabout, "car"
 * (the car near and five to ten small ones far off), whole clip, IoU and ms a frame: every due
 * subject 0.9773 at 542 (ISNet on 72 of 75 frames), a share of 0.1 0.9767 at 454 (57), 0.25 or 0.5
 * 0.9752 at 353 and 317 (39; `original` 0.9747); two-dogs "dogs", person-car "car" and "car and
 * person", bmx-trees "person and bicycle": the same runs and scores (AMD EPYC Zen 5, 2 cores, loaded).
 */
const DUE_SHARE = 0.25;
/** detector regions overlap by this fraction of the frame when split */
const REGION_OVERLAP = 0.1;

/**
 * Where the detector looks: the whole frame, plus its two halves along the long side when the
 * frame is far from the usual video shape (wider than 2.5:1, or portrait/square): letterboxed
 * whole, such a frame shrinks its subjects too much for the detector's 416 px input.
 */
export function detectionRegions(aspect: number): Box[] {
  if (aspect < 2.5 && aspect > 1) return [FULL_FRAME];
  const half = 0.5 + REGION_OVERLAP / 2;
  return aspect >= 2.5
    ? [FULL_FRAME, { x0: 0, y0: 0, x1: half, y1: 1 }, { x0: 1 - half, y0: 0, x1: 1, y1: 1 }]
    : [FULL_FRAME, { x0: 0, y0: 0, x1: 1, y1: half }, { x0: 0, y0: 1 - half, x1: 1, y1: 1 }];
}

/** what a surveying session's tracks were after one frame, for the second pass to show */
export interface SurveyedFrame {
  tracks: Track[];
  /** ISNet was shown the subjects' region (other objects apart from them) */
  cropToSubjects: boolean;
  /** the frame was one of the detector's keyframes */
  keyframe: boolean;
}

interface TrackState {
  propagator: KeyframePropagator;
  /** the propagator's shift already applied to the track's box */
  appliedShift: { dx: number; dy: number };
  /**
   * foreground pixels in the box at the last keyframe the detector confirmed, on ISNet's plane and
   * (for a person) on RVM's: support is judged on the plane the keyframe has, against the reference
   * measured on that same plane
   */
  reference: { salient?: number; people?: number };
  /**
   * Between the detector's keyframes ISNet runs again for the shown subjects that are not people
   * (a person's matte is RVM's, every frame): every 2nd frame, every frame while the subject
   * changes shape (a running dog), as in `original` (salient-interval.ts). The two-dogs composite's
   * "the biggest dog": 0.876 at every 2nd frame, 0.925 at every frame.
   */
  interval: SalientInterval;
  /** frames since the track's matte came from ISNet */
  sinceMatte: number;
}

/**
 * `pro`: only the subjects named in the text prompt. On keyframes the detector (NanoDet, COCO)
 * finds the requested classes and the tracker keeps their identity; ISNet (as in `original`)
 * segments the frame (or, with other objects in sight, a crop around the requested subjects) and
 * each track keeps ISNet's matte inside its box (grown and feathered).
 * Between keyframes each track's matte moves with its own subject's estimated motion, so two
 * subjects moving differently stay apart. People are the exception: a person track keeps, inside
 * its box, the matte of RVM (a video-matting model for people) run on every frame.
 * The output is the union of the tracks' mattes. Without a prompt `pro` is `original` (ProModel).
 */
export class ProSession implements SegmentationSession {
  readonly notes: string[] = [];
  /** frames that ran ISNet / the detector (for benchmarks and tests) */
  keyframes = 0;
  detectorRuns = 0;
  private readonly tracker = new BoxTracker();
  private readonly states = new Map<number, TrackState>();
  private framesSinceKeyframe = 0;
  /** the next picture is a keyframe whatever the interval: the video's first, or the first after blank frames */
  private keyframeDue = true;
  /** a hard cut is a keyframe: the shot before's boxes do not fit it (after blank frames, see nothingIn) */
  private readonly cuts = new SceneCutDetector();
  /** frames are finished one after another, in order */
  private readonly finishing = new InOrder();
  private finishedCount = 0;
  /** the frame being finished's luma, once made (lumaOf) */
  private frameLuma?: LumaImage;
  /** RVM's people against the frame before's (people-jump.ts) */
  private readonly jumps = new PeopleJumps();
  /** the frame being finished is one of the detector's keyframes */
  private onKeyframe = false;
  /** ISNet is shown only the region around the requested subjects: the last keyframe found other objects apart from them, or ISNet shown the whole frame since lost one (`foregroundOf`) */
  private cropToSubjects = false;
  /** keyframe by keyframe: the tracks seen and their own mattes (a survey of the clip, see surveyed-session.ts) */
  observer?: (rgb: Uint8Array, tracks: readonly ObservedTrack[]) => void;
  /** only tracks this keeps are shown (a prompt's attributes, decided for the whole clip) */
  keep?: (track: Track) => boolean;
  /** a track's colours (shares of COLOUR_NAMES in its own matte) as the survey measured them */
  appearance?: (track: Track) => Float64Array | undefined;
  /**
   * The survey's tracks for the next frame (surveyed-session.ts): this session then shows them
   * instead of detecting and tracking again, so the tracks the survey chose are the ones shown
   * (a second tracking pass drifts: its boxes move with the mattes it shows, which differ).
   */
  replay?: () => SurveyedFrame | undefined;
  /**
   * A survey (surveyed-session.ts) reads the subjects' mattes on the detector's keyframes only, so
   * ISNet does not run between them; the boxes in between then move with the keyframe's matte.
   * two-dogs "the biggest dog": 0.917 -> 0.913, both passes' CPU 113 -> 75 s.
   */
  keyframesOnly = false;
  /** called as each frame is finished, in order, before the next one is (a survey's snapshot: `snapshot`) */
  frameFinished?: () => void;

  constructor(
    private readonly isnet: IsnetSegmenter,
    private readonly detector: NanodetDetector,
    private readonly requested: ReadonlySet<number>,
    /** display width / height of the video (the session's input is stretched to ISNet's square) */
    private readonly aspect: number,
    /** RVM, when people are requested */
    private readonly people?: PeopleMatter,
  ) {}

  get inputWidth(): number {
    return this.isnet.width;
  }

  get inputHeight(): number {
    return this.isnet.height;
  }

  get matteSize(): { width: number; height: number } {
    return { width: this.inputWidth, height: this.inputHeight };
  }

  /** how many frames RVM ran on: the detector's keyframes, and every frame while a person is tracked */
  get peopleFrames(): number {
    return this.people?.ran ?? 0;
  }

  /** live tracks (ids are stable across frames) */
  get tracks(): readonly Track[] {
    return this.tracker.tracks;
  }

  /** frames finished so far: while a frame is being finished, its number from 0 */
  get framesFinished(): number {
    return this.finishedCount;
  }

  /** with people asked for, RVM works on the next frames while this one is finished (people-matter.ts) */
  get framesInFlight(): number {
    return this.people ? PRO_FRAMES_IN_FLIGHT : 1;
  }

  /** RVM takes the frame at once while a person is tracked; the rest follows frame after frame, in order */
  segment(frame: RgbFrame): Promise<Matte> {
    const blank = isBlank(frame);
    const sequence = this.people?.add(frame, blank);
    return this.finishing.run(() => (blank ? this.nothingIn(sequence) : this.finish(frame, sequence)));
  }

  /**
   * A blank frame (black, a flat card) holds no subject: no model runs on it (the detector, ISNet,
   * RVM) and its matte is empty. RVM is not shown it, so its recurrent state starts afresh on the
   * next picture; that picture is a keyframe, where the detector finds the subjects again and the
   * tracks kept through the blank frames take them back (a dip to black keeps who is who).
   */
  private async nothingIn(sequence: number | undefined): Promise<Matte> {
    try {
      this.keyframeDue = true;
      this.onKeyframe = false;
      this.jumps.forget();
      this.frameFinished?.();
      return emptyMatte(this.isnet);
    } finally {
      this.finishedCount++;
      if (sequence !== undefined) {
        this.people!.skip(sequence);
        this.people!.finished(sequence, false);
      }
    }
  }

  private async finish(frame: RgbFrame, sequence: number | undefined): Promise<Matte> {
    this.frameLuma = undefined;
    try {
      const replayed = this.replay?.();
      // a replay keeps the survey's keyframes, where its tracks changed
      const due = replayed?.keyframe ?? this.keyframeDueAt(frame);
      const people = sequence === undefined ? undefined : await this.peopleOf(sequence, due);
      // the people jumped (a cut within one room, which the cut detector misses): the detector finds them afresh
      const jumped = !replayed && this.jumps.jumpedTo(people, this.isnet.width, this.isnet.height);
      const isKeyframe = due || jumped;
      this.onKeyframe = isKeyframe;
      const moved = this.moveTracks(frame.data, isKeyframe);
      if (replayed) {
        this.tracker.restore(replayed.tracks);
        this.cropToSubjects = replayed.cropToSubjects;
      }
      const matte = await this.finishWith(frame, { isKeyframe, replayed: replayed !== undefined, moved, people });
      this.frameFinished?.();
      return matte;
    } finally {
      this.finishedCount++;
      if (sequence !== undefined) this.people?.finished(sequence, this.personTracked);
    }
  }

  /**
   * The luma of the frame being finished, as every track's propagator reads it (they downsample
   * alike): made once a frame for all of them, where one needs it (moved, or a keyframe's matte set).
   */
  private lumaOf(rgb: Uint8Array): LumaImage {
    return (this.frameLuma ??= downsampledLuma(rgb, this.isnet.width, this.isnet.height, MOTION_DOWNSAMPLING));
  }

  /** the detector's keyframe is due on `frame`: the first picture (or the first after blank frames), a hard cut, or the interval's end */
  private keyframeDueAt(frame: RgbFrame): boolean {
    const cut = this.cuts.isCut(frame.data, frame.width, frame.height);
    return this.keyframeDue || cut || this.framesSinceKeyframe + 1 >= KEYFRAME_INTERVAL;
  }

  private get personTracked(): boolean {
    return this.tracker.tracks.some((t) => t.cls === PERSON);
  }

  /** RVM's people of frame `sequence`, read on the detector's keyframes and while a person is tracked */
  private async peopleOf(sequence: number, isKeyframe: boolean): Promise<Float32Array | undefined> {
    if (isKeyframe || this.personTracked) return this.people!.alphaOf(sequence, this.isnet.width, this.isnet.height);
    this.people!.skip(sequence);
    return undefined;
  }

  /** the frame's tracks' mattes and the output, once its tracks are moved (or replayed) and its people read */
  private async finishWith(frame: RgbFrame, { isKeyframe, replayed, moved, people }: { isKeyframe: boolean; replayed: boolean; moved: Map<number, Float32Array>; people: Float32Array | undefined }): Promise<Matte> {
    const { width, height } = this.isnet;
    const peopleFromRvm = this.people !== undefined;
    let mattes = moved;
    if (isKeyframe) {
      mattes = replayed ? await this.replayedKeyframe(frame.data, moved, peopleFromRvm) : await this.keyframe(frame.data, moved, people);
      this.observer?.(frame.data, this.tracker.tracks.map((track) => ({ id: track.id, cls: track.cls, box: track.box, detected: track.misses === 0, matte: this.matteOf(track, people, mattes) })));
      this.keyframeDue = false;
      this.framesSinceKeyframe = 0;
    } else {
      this.framesSinceKeyframe++;
      mattes = await this.refresh(frame.data, moved, peopleFromRvm);
    }
    const out = new Float32Array(width * height);
    // subjects a prompt's attributes left out
    const left = this.keep ? this.tracker.tracks.filter((t) => !this.keep!(t)) : [];
    for (const track of this.tracker.tracks) {
      if (!this.shown(track)) continue;
      const own = this.matteOf(track, people, mattes);
      if (!own) continue;
      const matte = left.length ? this.apartFrom(own, frame.data, track, left) : own;
      for (let i = 0; i < out.length; i++) out[i] = max(out[i], matte[i] * track.opacity);
    }
    return { width, height, data: toAlphaBytes(out) };
  }

  /**
   * A kept subject's matte without the subjects left out beside it (RVM's matte holds every person,
   * and a kept track's grown, feathered gate reaches over its neighbours): zero inside a detected
   * left-out track's box, except inside the kept track's own box; and, wherever a left-out track
   * (detected or held) overlaps the kept one's gate, drop the pixels whose colour name is clearly
   * the left-out subject's and not the kept one's (the survey measured both), and the pixels of
   * shared colours that its colours surround (colour-apart.ts).
   */
  private apartFrom(source: Float32Array, rgb: Uint8Array, track: Track, others: readonly Track[]): Float32Array {
    const { width, height } = this.isnet;
    const ownColours = this.appearance?.(track);
    const near = others.filter((o) => intersectionArea(expandBox(o.box, DEFAULT_GATE.margin), expandBox(track.box, DEFAULT_GATE.margin)) > 0);
    const theirs = near.map((o) => this.appearance?.(o)).filter((c): c is Float64Array => c !== undefined);
    const matte = Float32Array.from(source);
    if (ownColours && theirs.length) withoutTheirColours(matte, rgb, width, height, { own: ownColours, others: theirs });
    const own = toPixelRect(track.box, width, height);
    const detected = others.filter((o) => o.misses === 0).map((o) => toPixelRect(o.box, width, height));
    for (let y = 0, i = 0; y < height; y++) {
      for (let x = 0; x < width; x++, i++) if (matte[i] !== 0 && !inPixelRect(own, x, y) && detected.some((r) => inPixelRect(r, x, y))) matte[i] = 0;
    }
    return matte;
  }

  /** a track's own matte: RVM's inside its box for a person, else its ISNet matte */
  private matteOf(track: Track, people: Float32Array | undefined, mattes: Map<number, Float32Array>): Float32Array | undefined {
    const { width, height } = this.isnet;
    return people && track.cls === PERSON ? gatePlane(people, track.box, width, height) : mattes.get(track.id);
  }

  /**
   * Each track's last matte moved to the current frame; boxes follow. Between keyframes a person
   * tracked with RVM's people only follows (its box moves): its matte on this frame is RVM's, so
   * the moved one would not be read (bystanders, three people: 550-565 -> 496-502 ms of CPU a frame, the same mattes).
   */
  private moveTracks(rgb: Uint8Array, isKeyframe: boolean): Map<number, Float32Array> {
    const { width, height } = this.isnet;
    const moved = new Map<number, Float32Array>();
    for (const track of this.tracker.tracks) {
      const state = this.states.get(track.id);
      if (!state?.propagator.hasKeyframe) continue;
      const luma = this.lumaOf(rgb);
      if (this.people && track.cls === PERSON && !isKeyframe) state.propagator.follow(luma);
      else moved.set(track.id, state.propagator.propagate(rgb, width, height, luma));
      const { dx, dy } = state.propagator.shift;
      this.tracker.move(track.id, translateBox(track.box, (dx - state.appliedShift.dx) / width, (dy - state.appliedShift.dy) / height));
      state.appliedShift = { dx, dy };
      state.sinceMatte++;
    }
    return moved;
  }

  /**
   * The detector's keyframe: tracks updated, each given its matte and its motion's reference. The
   * foreground is ISNet's, or RVM's (`people`) where every subject in sight is a person: a person's
   * matte is RVM's anyway, so ISNet would only serve the tracker's support and motion. A track's support is
   * judged on ISNet's plane where it ran, else on RVM's for a person, each against the reference
   * mass measured on the same plane (`TrackState.reference`).
   */
  private async keyframe(rgb: Uint8Array, moved: Map<number, Float32Array>, people: Float32Array | undefined): Promise<Map<number, Float32Array>> {
    const { width, height } = this.isnet;
    const found: Detection[] = [];
    for (const region of detectionRegions(this.aspect)) {
      found.push(...(await this.detector.detect(rgb, width, height, { box: region, aspect: this.aspect })));
      this.detectorRuns++;
    }
    const labelled = people ? peopleRvmFills(found, people, width, height) : found;
    const detections = nonMaxSuppression(labelled.filter((d) => this.requested.has(d.cls)), 0.5, 50);
    const mattes = new Map<number, Float32Array>();
    const confirmed = peopleRvmConfirms(detections, this.personTracked, people, width, height);
    const candidates = detections.filter((d) => d.score >= DEFAULT_TRACKER_OPTIONS.startScore || confirmed.has(d));
    if (this.tracker.tracks.length === 0 && candidates.length === 0) return mattes; // nothing requested in sight: no ISNet run
    const subjects = [...this.tracker.tracks.map((track) => track.box), ...candidates.map((d) => d.box)];
    // with other objects in sight, ISNet is shown only the requested subjects (see subject-crop.ts)
    const others = labelled.filter((d) => !this.requested.has(d.cls) && d.score >= DEFAULT_TRACKER_OPTIONS.startScore).map((d) => d.box);
    this.cropToSubjects = othersApart(others, subjects);
    const peopleOnly = people !== undefined && [...this.tracker.tracks, ...candidates].every((t) => t.cls === PERSON);
    const ownMattes = this.withIsnetMattes(this.tracker.tracks, people !== undefined);
    const salient = peopleOnly ? undefined : await this.foregroundOf(rgb, () => subjects, moved, ownMattes, this.cropToSubjects);
    if (salient) this.keyframes++;
    const foreground = (salient ?? people)!;
    const peoplePlane = (track: Track) => (track.cls === PERSON ? people : undefined);
    const supported = new Set<number>();
    for (const track of this.tracker.tracks) {
      const reference = this.states.get(track.id)?.reference;
      const [plane, mass] = salient ? [salient, reference?.salient] : [peoplePlane(track), reference?.people];
      if (plane && mass && massInBox(plane, width, height, track.box) >= SUPPORT_RATIO * mass) supported.add(track.id);
    }
    const tracks = this.tracker.update(detections, supported, confirmed);
    for (const id of this.states.keys()) if (!tracks.some((t) => t.id === id)) this.states.delete(id);
    const ownRegion = peopleOnly ? undefined : this.regionOfShown(tracks, people !== undefined);
    const shownForeground = ownRegion ? await this.foregroundAround(rgb, ownRegion.region) : undefined;
    for (const track of tracks) {
      const ownPeople = peoplePlane(track);
      if (!salient && !ownPeople) continue; // an object beside the people shown, ISNet not run: no matte of its own
      const own = shownForeground && ownRegion!.tracks.includes(track) ? shownForeground : foreground;
      mattes.set(track.id, this.keyMatte(rgb, track, own, moved.get(track.id)));
      if (track.misses > 0) continue;
      const reference = this.states.get(track.id)!.reference;
      if (salient) reference.salient = massInBox(salient, width, height, track.box);
      if (ownPeople) reference.people = massInBox(ownPeople, width, height, track.box);
    }
    return mattes;
  }

  /**
   * On a keyframe that showed ISNet more than the shown subjects whose matte is ISNet's (tracks left
   * out by the prompt in sight): those subjects and the region ISNet should see for
   * them alone, so that what it finds salient is theirs (a left-out dog, or a car behind the kept
   * one, is not); undefined when the keyframe's foreground already is theirs.
   */
  private regionOfShown(tracks: readonly Track[], peopleFromRvm: boolean): { tracks: Track[]; region: Box } | undefined {
    const own = this.withIsnetMattes(tracks, peopleFromRvm);
    if (own.length === 0 || !this.leftOutApartFrom(own)) return undefined;
    const region = subjectRegion(own.map((t) => t.box));
    return region && { tracks: own, region };
  }

  /**
   * A keyframe of the survey's tracks (`replay`): no detector; the shown subjects whose matte is
   * ISNet's get it fresh, from ISNet shown them alone when others are in sight.
   */
  private async replayedKeyframe(rgb: Uint8Array, moved: Map<number, Float32Array>, peopleFromRvm: boolean): Promise<Map<number, Float32Array>> {
    for (const id of this.states.keys()) if (!this.tracker.tracks.some((t) => t.id === id)) this.states.delete(id);
    const own = this.withIsnetMattes(this.tracker.tracks, peopleFromRvm);
    return own.length ? this.isnetMattes(rgb, moved, own, false) : new Map();
  }

  /** the current state of the tracks, for a second pass to show (`replay`) */
  get snapshot(): SurveyedFrame {
    return { tracks: this.tracker.tracks.map((t) => ({ ...t, box: { ...t.box } })), cropToSubjects: this.cropToSubjects, keyframe: this.onKeyframe };
  }

  /**
   * whether a track left out by the prompt stands apart from `shown`: one lying
   * mostly inside a shown track's box is that subject under a second label (car-slide's car is also
   * a truck), and ISNet shown the whole frame cuts a lone subject better (subject-crop.ts)
   */
  private leftOutApartFrom(shown: readonly Track[]): boolean {
    const leftOut = this.tracker.tracks.filter((t) => !this.shown(t));
    return othersApart(
      leftOut.map((t) => t.box),
      shown.map((t) => t.box),
    );
  }

  /** the shown tracks among `tracks` whose matte is ISNet's: all but people, where RVM mattes them (`peopleFromRvm`) */
  private withIsnetMattes(tracks: readonly Track[], peopleFromRvm: boolean): Track[] {
    return tracks.filter((t) => this.shown(t) && !(peopleFromRvm && t.cls === PERSON));
  }

  /** whether the track is shown in the output (kept by the prompt's attributes) */
  private shown(track: Track): boolean {
    return !this.keep || this.keep(track);
  }

  /**
   * ISNet again between keyframes when the shown subjects whose matte is ISNet's and that are due
   * (their interval) hold DUE_SHARE of those subjects' box area: their mattes are all refreshed
   * inside their (moved) boxes as on a keyframe, without the detector; the other tracks keep their
   * moved mattes. ISNet sees the region around the subjects when the last keyframe found other
   * objects apart from them or subjects left out are in sight.
   */
  private async refresh(rgb: Uint8Array, moved: Map<number, Float32Array>, peopleFromRvm: boolean): Promise<Map<number, Float32Array>> {
    if (this.keyframesOnly) return moved;
    const tracks = this.withIsnetMattes(this.tracker.tracks, peopleFromRvm).filter((t) => moved.has(t.id));
    const due = tracks.filter((t) => {
      const state = this.states.get(t.id)!;
      return state.sinceMatte >= state.interval.frames;
    });
    const area = (list: readonly Track[]) => list.reduce((sum, t) => sum + boxArea(t.box), 0);
    return due.length > 0 && area(due) >= DUE_SHARE * area(tracks) ? this.isnetMattes(rgb, moved, tracks, true) : moved;
  }

  /**
   * `tracks` (shown, not people from RVM) given fresh mattes from one ISNet run; the other tracks
   * keep their moved ones. `betweenKeyframes`: their boxes have only moved since the last keyframe
   * (a region around them takes in their moved mattes too: `movedExtents`).
   */
  private async isnetMattes(rgb: Uint8Array, moved: Map<number, Float32Array>, tracks: readonly Track[], betweenKeyframes: boolean): Promise<Map<number, Float32Array>> {
    const boxes = tracks.map((t) => t.box);
    const subjects = () => (betweenKeyframes ? [...boxes, ...this.movedExtents(moved, tracks)] : boxes);
    const foreground = await this.foregroundOf(rgb, subjects, moved, tracks, this.cropToSubjects || this.leftOutApartFrom(tracks));
    this.keyframes++;
    const mattes = new Map(moved);
    for (const track of tracks) mattes.set(track.id, this.keyMatte(rgb, track, foreground, moved.get(track.id)));
    return mattes;
  }

  /** a track's new matte from ISNet's `foreground` (blended with its moved `previous` one), inside its box; its propagator starts from it */
  private keyMatte(rgb: Uint8Array, track: Track, foreground: Float32Array, previous: Float32Array | undefined): Float32Array {
    const { width, height } = this.isnet;
    let state = this.states.get(track.id);
    if (!state) {
      state = { propagator: new KeyframePropagator(MOTION_DOWNSAMPLING), appliedShift: { dx: 0, dy: 0 }, reference: {}, interval: new SalientInterval(), sinceMatte: 0 };
      this.states.set(track.id, state);
    }
    const matte = gatePlane(foreground, track.box, width, height);
    if (previous) {
      state.interval.observe(maskIou(previous, matte, 0.5));
      // the blend, gated by the box: gate * (w * fresh + (1 - w) * previous)
      blendInGate(matte, previous, KEYFRAME_BLEND, track.box, width, height);
    }
    state.propagator.setKeyframe(rgb, width, height, matte, width, height, this.lumaOf(rgb));
    state.appliedShift = { dx: 0, dy: 0 };
    state.sinceMatte = 0;
    return matte;
  }

  /**
   * ISNet's matte of the frame: of the region around the `subjects` (their boxes, worked out only
   * where that region is needed) where `cropped` (other objects apart from them in sight), else of
   * the whole frame, and of that region too where the whole frame's loses one of the `tracks` whose
   * matte is ISNet's (under SUPPORT_RATIO of its moved matte's foreground left in its box). Shown
   * the whole frame, ISNet may take for the salient object something the detector missed on that
   * frame (for "car", a person passing the car); the region is then kept until the detector's next
   * keyframe. person-car "car", 60 frames: 0.829 -> 0.884 (frames 4-7 had lost the car whole), one
   * ISNet run more; car-slide, DAVIS dog and car-roundabout within 0.0001; bmx-trees "person and
   * bicycle" 0.590 -> 0.587, on the frames where the rider is behind branches.
   */
  private async foregroundOf(rgb: Uint8Array, subjects: () => readonly Box[], moved: Map<number, Float32Array>, tracks: readonly Track[], cropped: boolean): Promise<Float32Array> {
    const region = () => subjectRegion(subjects());
    if (cropped) return this.foregroundAround(rgb, region());
    const whole = await this.foregroundAround(rgb, undefined);
    if (!this.loses(whole, moved, tracks)) return whole;
    const around = region();
    if (!around) return whole;
    this.cropToSubjects = true;
    return this.foregroundAround(rgb, around);
  }

  /**
   * The boxes around the `tracks`' moved mattes, for the region ISNet is shown between keyframes: a
   * subject that grows (coming nearer) outgrows its box, which only moves between the detector's
   * keyframes, and ISNet shown the region around the boxes alone cut it (the matte then kept only
   * the moved matte's share of the blend there). DAVIS dog "dog" 0.908 -> 0.914 (frames 36-47 0.858
   * -> 0.883), bmx-trees "person and bicycle" 0.587 -> 0.592, person-car "car" 0.884 -> 0.886, the
   * composite's "car" 0.891 -> 0.903, two-dogs "the biggest dog" 0.918 -> 0.915. On keyframes too
   * (where the boxes are new): dog 0.917, but two-dogs 0.909.
   */
  private movedExtents(moved: Map<number, Float32Array>, tracks: readonly Track[]): Box[] {
    const { width, height } = this.isnet;
    return tracks.flatMap((track) => {
      const matte = moved.get(track.id);
      const extent = matte && foregroundExtent(matte, width, height);
      return extent ? [extent] : [];
    });
  }

  /** whether `foreground` keeps under SUPPORT_RATIO of the foreground of any of the `tracks`' moved mattes in its box */
  private loses(foreground: Float32Array, moved: Map<number, Float32Array>, tracks: readonly Track[]): boolean {
    const { width, height } = this.isnet;
    return tracks.some((track) => {
      const matte = moved.get(track.id);
      const before = matte ? massInBox(matte, width, height, track.box) : 0;
      return before > 0 && massInBox(foreground, width, height, track.box) < SUPPORT_RATIO * before;
    });
  }

  /** ISNet's matte of the frame, run on `region` only when there is one, not on pillarbox bars (pictureForSquareModel; zeros elsewhere) */
  private async foregroundAround(rgb: Uint8Array, region: Box | undefined): Promise<Float32Array> {
    const { width, height } = this.isnet;
    const seen = withinPicture(region, pictureForSquareModel(rgb, width, height, this.aspect));
    if (!seen) return this.isnet.probabilities(rgb);
    const rect = toPixelRect(seen, width, height);
    const matte = await this.isnet.probabilities(cropRgb(rgb, width, rect, width, height));
    return pastePlane(matte, width, height, rect, width, height);
  }

  async close(): Promise<void> {
    await this.people?.close();
  }
}

/**
 * `pro`'s prompt: the requested class indices, the subject queries (prompt-grammar.ts) and the notes
 * for the job's details; null for a prompt that names no subject the detector knows.
 */
export function resolvePrompt(textPrompt: string): { requested: Set<number>; queries: SubjectQuery[]; notes: string[] } | null {
  const { subjects, queries, unknownWords } = parsePrompt(textPrompt);
  if (subjects.length === 0) return null;
  const notes = [`pro: keeping ${subjects.join(', ')}`];
  if (unknownWords.length) notes.push(`text_prompt: ignored unknown words: ${unknownWords.join(', ')}`);
  return { requested: new Set(subjects.map(classIndex)), queries, notes };
}

/**
 * The note of a `pro` job whose prompt names no subject the detector knows ("the guitar",
 * "product"): it is matted as a job without a prompt, as the original service's clients expect a
 * prompt to be taken, not refused.
 */
export function noKnownSubjectNote(textPrompt: string): string {
  const { unknownWords } = parsePrompt(textPrompt);
  const named = unknownWords.length ? ` (${unknownWords.join(', ')})` : '';
  return `pro: text_prompt names no subject it knows${named}, keeping the main subject as original does (GET /v1/models lists the subjects)`;
}

/** the note of a `pro` job without a prompt */
export const NO_PROMPT_NOTE = 'pro: no text_prompt, keeping the main subject as original does (see the README: how a subject is chosen)';

/**
 * `pro`. Without a prompt it keeps the video's main subject, which is what `original` is for, and
 * it is `original`: ProSession's own choice of the main subject scored lower and took longer
 * (bench:davis, whole clips, Intel Xeon, 2 cores; IoU and ms a frame, ProSession against
 * `original`): DAVIS dog 0.783 / 852 against 0.924 / 361, car-slide 0.952 / 406 against 0.960 /
 * 231, breakdance-flare 0.897 / 242 against 0.917 / 190, car-roundabout 0.977 / 705 against 0.972 /
 * 265, portrait-pan 0.979 / 181 against 0.979 / 179, bystanders 0.987 / 205 against 0.988 / 169.
 */
export class ProModel implements SegmentationModel {
  readonly name = 'pro' as const;
  private readonly mainSubject: OriginalModel;

  constructor(
    private readonly isnet: (size: { width: number; height: number }) => Promise<IsnetSegmenter>,
    private readonly detector: () => Promise<NanodetDetector>,
    private readonly rvm: (geometry: RvmGeometry) => Promise<RvmMatter>,
  ) {
    this.mainSubject = new OriginalModel({ isnet, detector, rvm });
  }

  /** a prompt with attributes ("the person in red") gets a session that surveys the clip first */
  async createSession(options: SessionOptions): Promise<ProSession | SurveyedProSession | OriginalSession> {
    // a prompt of no words (blank, punctuation) is no prompt: its note said it named no subject it knew
    const prompt = options.textPrompt !== undefined && normalise(options.textPrompt) !== '' ? options.textPrompt : undefined;
    const resolved = prompt === undefined ? null : resolvePrompt(prompt);
    if (prompt === undefined || resolved === null) {
      const session = await this.mainSubject.createSession(options);
      session.notes.push(prompt === undefined ? NO_PROMPT_NOTE : noKnownSubjectNote(prompt));
      return session;
    }
    const { requested, queries, notes } = resolved;
    const [isnet, detector] = await Promise.all([this.isnet(isnetInputSizeFor(options.width, options.height)), this.detector()]);
    const aspect = options.width / options.height;
    const open = async (mirroredPeople: boolean) => {
      const people = requested.has(PERSON) ? new PeopleMatter(await openPeopleRvm(this.rvm, options.width, options.height, { mirrored: mirroredPeople }), PRO_FRAMES_IN_FLIGHT) : undefined;
      return new ProSession(isnet, detector, requested, aspect, people);
    };
    const session = await open(true);
    session.notes.push(...notes);
    if (!promptSurveysWholeClip(prompt)) return session;
    return new SurveyedProSession(await open(SURVEY_MIRRORED_PEOPLE), session, queries, aspect);
  }
}
