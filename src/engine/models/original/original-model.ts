import { Matte, RgbFrame, SegmentationModel, SegmentationSession, SessionOptions } from '../../types';
import { mirrorRows } from '../image/mirror';
import { resizePlane, resizeRgb, toAlphaBytes } from '../image/resample';
import { InOrder } from '../in-order';
import { GivenFrames } from '../given-frames';
import { IsnetSegmenter, isnetInputSizeFor } from '../isnet/isnet-segmenter';
import { MainSubjectFinder, MainSubjects } from '../pro/main-subjects';
import { NanodetDetector } from '../pro/nanodet-detector';
import { pictureForSquareModel, withinPicture } from '../image/picture-bars';
import { RvmMatter } from '../rvm/rvm-matter';
import { RvmGeometry } from '../rvm/rvm-model-file';
import { openPeopleRvm } from '../rvm/people-rvm';
import { RvmSession } from '../rvm/rvm-session';
import { SceneCutDetector } from '../rvm/scene-cut';
import { PeopleJumps } from '../rvm/people-jump';
import { KeyframePropagator } from '../temporal/keyframe-propagator';
import { SalientInterval } from '../temporal/salient-interval';
import { maskIou } from '../../quality/metrics';
import { objectTracks, peopleMayMatter, salientNeeds, subjectMatte } from './subject-matte';
import { emptyMatte, isBlank } from '../image/blank-frame';
import { lostAtEdge } from './lost-at-edge';
import { RvmOnDemand } from '../rvm/rvm-on-demand';
import { IsnetScale, IsnetScalePolicy, SMALL_ISNET_SIZE } from './isnet-scale';
import { Box } from '../pro/boxes';
import { Track } from '../pro/box-tracker';
import { cropRgb, pastePlane, toPixelRect } from '../pro/subject-crop';

/*
 * ISNet runs on every frame or every 2nd frame that needs it (salient-interval.ts: every frame
 * while the subject changes shape); frames in between reuse its matte moved with the subject, by
 * the subject's own motion field (keyframe-propagator.ts), from the keyframe before them and, where
 * the frames are fed ahead, from the one after them too (`betweenKeyframes`). A subject that changes shape (an animal
 * running, a rider pedalling) still drifts from it within a few frames (DAVIS dog, whole clip,
 * when the move was one translation: 0.77 at every 4th frame, 0.80 at every 3rd, 0.86 at every
 * 2nd, 0.91 at every frame). ISNet does not run where no object is kept
 * (people alone come from RVM). It runs at 1024x1024, or at 640x640 on a shot's keyframes while
 * the two sizes agree (isnet-scale.ts).
 *
 * ISNet runs on a thread of its own, and the next keyframe's run starts as soon as its frame is
 * here (`planAhead`), beside the engine's work on the frames before it. Measured on a quiet AMD
 * EPYC Zen 5 (2 cores), interleaved, the same mattes: end to end on car-slide 19.9-20.5 -> 19.0-19.6 s,
 * DAVIS dog 23.9-24.4 -> 22.7 s; in bench:matting's quality section (the session alone)
 * car-slide 192-193 -> 186-188 ms a frame, car-roundabout 224-225 -> 217-218, dog unchanged
 * (ISNet on every frame: its runs already follow each other).
 */
/**
 * weight of a new keyframe's ISNet matte against the previous keyframe's matte moved to it: an
 * average over keyframes removes part of the model's frame-to-frame noise (flicker), the new one
 * still decides wherever the two disagree
 */
const KEYFRAME_BLEND = 0.6;
/** motion is estimated on luma about this wide (the matte downsampled by a whole factor: 320 px for 640) */
const MOTION_WIDTH = 320;

function motionDownsampling(matteWidth: number): number {
  return Math.max(1, Math.round(matteWidth / MOTION_WIDTH));
}

/**
 * The size `original` decodes frames at: the video's, at most ISNet's input on each axis. RVM, the
 * detector, the motion estimate and the matte work at RVM's size (the video's aspect, long side
 * 640), ISNet on keyframes at its own square: decoding at ISNet's square for every frame (as
 * before) scaled each frame up to 1024x1024 and back down to the matte's size, and moved ISNet's
 * matte at 1024x1024 on the frames between its runs. ISNet's graph scales the frame it is given
 * (isnet-graph.ts). Measured (Intel Xeon, 2 cores, interleaved): car-slide end to end 6.5% faster,
 * quality section car-slide 0.9543 -> 0.9528, portrait-pan 0.9785 -> 0.9794, bmx-trees 0.557 -> 0.578.
 */
export function originalInputSize(video: { width: number; height: number }, isnet: { width: number; height: number }): { width: number; height: number } {
  return { width: Math.min(video.width, isnet.width), height: Math.min(video.height, isnet.height) };
}
/**
 * the mattes moved forward and backward to a frame between ISNet's runs are averaged from this
 * agreement (IoU at 0.5) on: below it the subject changed too much between the two, or a cut lies between
 */
const BOTH_WAYS_AGREE = 0.75;
/** RVM works on the next frames while this one's subjects are chosen and its matte is made */
const ORIGINAL_FRAMES_IN_FLIGHT = 4;

/** an ISNet run started before its frame's turn: on which frame, on which region */
interface SalientAhead {
  index: number;
  region: Box | undefined;
  scale: IsnetScale;
  probabilities?: Promise<Float32Array>;
}

/**
 * `original`, person-aware. ISNet (general salient objects) runs on every frame or every 2nd
 * frame where the matte keeps an object, and is moved with the subject in between; RVM (video
 * matting trained on people) runs at the video's aspect ratio on every frame where people may
 * matter, and with objects alone chosen only on keyframes that find people (rvm-on-demand.ts:
 * interleaved on a loaded 2-core AMD EPYC, whole clips, the same mattes: car-slide 566 -> 444 ms a
 * frame, DAVIS car-roundabout 580 -> 477, dog 926 -> 830); on keyframes the detector and the
 * subject selector decide what the video is about (see main-subjects.ts and subject-matte.ts): its
 * people come from RVM, its other subjects, and what its people carry or ride, from ISNet. The
 * matte is at RVM's size.
 */
export class OriginalSession implements SegmentationSession {
  readonly framesInFlight = ORIGINAL_FRAMES_IN_FLIGHT;
  readonly notes: string[] = [];
  /** how many frames ran ISNet (for benchmarks), and how many of those runs were started ahead of their turn */
  keyframes = 0;
  keyframesAhead = 0;
  /** how many keyframes used ISNet's small size (isnet-scale.ts) */
  keyframesSmall = 0;
  /** the last frame's planes and subjects (for diagnostics: bench/quality/davis-frames.ts) */
  last?: { people: Float32Array; salient: Float32Array; subjects: MainSubjects };
  private readonly propagator: KeyframePropagator;
  private readonly interval = new SalientInterval();
  private readonly scales = new IsnetScalePolicy();
  /** diagnostics (bench/quality/davis-frames.ts with DUMP_DIR): run ISNet where only people are kept too, to see its plane */
  alwaysSalient = false;
  /** start the next keyframe's ISNet run ahead of its turn (off: every run at its turn, the reference in tests) */
  runsAhead = true;
  /** a frame's matte may wait (for the next ISNet run's plane) while the next frames' planes are decided (off: each matte is made before the next frame goes on, the reference in tests) */
  mattesOverlap = true;
  private previous?: Float32Array;
  /** RVM's people against the frame before's (people-jump.ts) */
  private readonly jumps = new PeopleJumps();
  private framesSinceSalient = 0;
  /**
   * Frames are finished one after another, in order, in two steps: `finishing` decides each frame's
   * planes (the subjects, RVM, ISNet's keyframes), then `matting` makes its matte from them after
   * the frame before's (it reads that matte). A frame between ISNet runs that waits for the next
   * run's plane (`betweenKeyframes`) waits in `matting`, so the next keyframe's planes are decided,
   * and the run after it started, while it waits.
   */
  private readonly finishing = new InOrder();
  private readonly matting = new InOrder();
  private readonly people: RvmOnDemand;
  /** a hard cut starts a new shot: its subjects are found afresh (`newShot`) */
  private readonly cuts = new SceneCutDetector();
  private empty?: Float32Array;
  /** the frames given and not yet finished: as decoded, at the matte's size, and whether blank */
  private readonly given = new GivenFrames<GivenFrame>();
  /** the next keyframe's ISNet plane moved back to the frames before it (`betweenKeyframes`), and that keyframe's run */
  private readonly backward: KeyframePropagator;
  private backwardFrom?: SalientAhead;
  /** the next keyframe's ISNet run, started as soon as its frame is here (see `planAhead`) */
  private ahead?: SalientAhead;

  /** the decoded frames' size (originalInputSize) */
  private readonly input: { width: number; height: number };
  /** the video's width over its height (the decoded frames may be squashed: originalInputSize) */
  private readonly aspect: number;

  constructor(
    private readonly isnet: { full: IsnetSegmenter; small: IsnetSegmenter },
    private readonly rvm: RvmSession,
    private readonly subjects: MainSubjectFinder,
    video: { width: number; height: number },
  ) {
    this.people = new RvmOnDemand(rvm, ORIGINAL_FRAMES_IN_FLIGHT);
    this.input = originalInputSize(video, isnet.full);
    this.aspect = video.width / video.height;
    this.propagator = new KeyframePropagator(motionDownsampling(rvm.inputWidth));
    this.backward = new KeyframePropagator(motionDownsampling(rvm.inputWidth));
  }

  /** how many frames RVM ran on (for tests and benchmarks) */
  get peopleFrames(): number {
    return this.people.ran;
  }

  /** a people plane with nobody in it, for frames whose matte does not read RVM's */
  private nobody(length: number): Float32Array {
    return (this.empty ??= new Float32Array(length));
  }

  /** the decoder's size: the video's, at most ISNet's on each axis (see `originalInputSize`) */
  get inputWidth(): number {
    return this.input.width;
  }

  get inputHeight(): number {
    return this.input.height;
  }

  get matteSize(): { width: number; height: number } {
    return { width: this.rvm.inputWidth, height: this.rvm.inputHeight };
  }

  /** RVM takes the frame at once where people may matter; the subjects, ISNet and the matte follow frame after frame, in order */
  segment(frame: RgbFrame): Promise<Matte> {
    const size = this.matteSize;
    const { width, height } = this.input;
    const small = width === size.width && height === size.height ? Buffer.from(frame.data.buffer, frame.data.byteOffset, frame.data.byteLength) : Buffer.from(resizeRgb(frame.data, width, height, size.width, size.height).buffer);
    const blank = isBlank({ ...size, data: small });
    // a chunk's frames come after its pre-roll's, numbered from 0 again: a run planned ahead was for the pre-roll's numbering
    if (!this.given.add(frame.index, { data: frame.data, small, blank })) this.ahead = undefined;
    this.startAhead();
    const sequence = this.people.add({ index: frame.index, ...size, data: small }, blank);
    const decided = this.finishing.run(() => (blank ? this.nothingIn(frame, sequence) : this.finish(frame, small, sequence)).finally(() => this.given.finished(frame.index)));
    return decided.then(({ matte }) => matte);
  }

  /**
   * A blank frame (black, a flat card) holds no subject: no model runs on it (RVM, the detector,
   * ISNet), its matte is empty, and RVM and ISNet start afresh on the next picture, as after a cut.
   */
  private async nothingIn(frame: RgbFrame, sequence: number): Promise<MatteToCome> {
    this.people.skip(sequence);
    this.people.setMode(sequence, false);
    this.jumps.forget();
    this.forgetSalient();
    if (this.ahead && frame.index >= this.ahead.index) this.ahead = undefined;
    return this.matteInOrder(async () => {
      this.previous = undefined;
      return emptyMatte(this.matteSize);
    });
  }

  /** the frame's planes, decided in order; its matte follows in order once they are in (`matting`) */
  private async finish(frame: RgbFrame, small: Buffer, sequence: number): Promise<MatteToCome> {
    const size = this.matteSize;
    const { width, height } = size;
    // on keyframes the detector runs beside RVM (where people may matter; with objects alone, before it)
    let observed = this.subjects.begin(small, size.width, size.height);
    // seen here on every frame, not from RVM's output: with objects alone chosen RVM sees keyframes only
    const afterCut = this.cuts.isCut(small, width, height);
    if (afterCut) observed = this.newShot(small, size);
    let people: Float32Array | undefined;
    try {
      // with objects alone chosen, RVM runs on a keyframe only for the detector's people checks
      if (peopleMayMatter(this.subjects.subjects) || (await this.subjects.readsPeople())) people = (await this.people.take(sequence)).alpha;
      // the people jumped (a cut within one room): chosen afresh, RVM's state and ISNet's plane kept
      if (this.jumps.jumpedTo(people, width, height) && !afterCut) observed = this.subjects.newShot(small, width, height);
      await observed(people);
      // with no subject chosen, people RVM sees are kept (subjectMatte)
      if (!people && this.subjects.subjects.chosen.length === 0) people = (await this.people.take(sequence)).alpha;
      if (!people) this.people.skip(sequence);
    } finally {
      this.people.setMode(sequence, peopleMayMatter(this.subjects.subjects));
    }
    people ??= this.nobody(size.width * size.height);
    const needs = salientNeeds(this.subjects.subjects, people);
    if (this.alwaysSalient) needs.read = true;
    let salient: Float32Array | (() => Promise<Float32Array>) | undefined;
    if (!needs.read) {
      // people alone: the matte does not read ISNet's plane, so ISNet does not run
      this.propagator.clear();
      this.interval.reset();
    } else if (!this.propagator.hasKeyframe || this.framesSinceSalient + 1 >= this.interval.frames) {
      salient = this.propagator.hasKeyframe ? await this.laterKeyframe(frame, small, needs.region) : await this.firstKeyframe(frame.data, needs.region);
      this.planAhead(frame.index, this.interval.frames, needs.region);
      this.propagator.setKeyframe(small, width, height, salient, width, height);
      this.framesSinceSalient = 0;
      this.keyframes++;
    } else {
      salient = await this.betweenKeyframes(frame.index, small);
      this.framesSinceSalient++;
    }
    if (this.ahead && frame.index >= this.ahead.index) this.ahead = undefined; // its turn came and went
    // the tracks move on with the frames decided after this one, before its matte may be made
    const subjects = snapshotOf(this.subjects.subjects);
    const planes = { people, salient };
    return this.matteInOrder(async () => {
      const salientPlane = (typeof planes.salient === 'function' ? await planes.salient() : planes.salient) ?? new Float32Array(planes.people.length);
      const matte = subjectMatte({ ...size, people: planes.people, salient: salientPlane, previous: afterCut ? undefined : this.previous }, subjects);
      this.previous = matte;
      this.last = { people: planes.people, salient: salientPlane, subjects };
      return { ...size, data: toAlphaBytes(matte) };
    });
  }

  /**
   * A hard cut before this frame: the last shot's subjects, ISNet plane and the run planned
   * from them are forgotten, and the frame is observed as the new shot's first keyframe
   */
  private newShot(small: Buffer, size: { width: number; height: number }): (people?: Float32Array) => Promise<MainSubjects> {
    this.forgetSalient();
    this.ahead = undefined;
    return this.subjects.newShot(small, size.width, size.height);
  }

  /** the next ISNet plane is a first keyframe's, not one moved on from the last */
  private forgetSalient(): void {
    this.propagator.clear();
    this.interval.reset();
  }

  /** `make` queued after the mattes of the frames before (it reads `previous`); the next frame's planes go on meanwhile, unless `mattesOverlap` is off */
  private async matteInOrder(make: () => Promise<Matte>): Promise<MatteToCome> {
    const matte = this.matting.run(make);
    matte.catch(() => undefined); // awaited by segment's caller
    if (!this.mattesOverlap) await matte.catch(() => undefined);
    return { matte };
  }

  /**
   * The next keyframe's ISNet run (`frames` on from this one), started as soon as its frame is here,
   * to go on beside the frames before it on ISNet's own thread. Planned where the subjects, which
   * decide whether ISNet runs and on what region, hold until its turn (no detector keyframe
   * between), or where ISNet sees the whole frame (a detector keyframe seldom changes that; a
   * region around the subjects moves with them on every one). Its frame and region are checked at
   * its turn (a run on anything else is not used), so the mattes are those of a run at its turn.
   */
  private planAhead(index: number, frames: number, region: Box | undefined): void {
    const holds = this.subjects.holdFor(frames) || (region === undefined && this.subjects.subjects.chosen.length > 0);
    this.ahead = holds && this.runsAhead ? { index: index + frames, region, scale: this.scales.next } : undefined;
    this.startAhead();
  }

  /**
   * A frame between two ISNet runs: the last keyframe's matte moved forward to it, averaged with the
   * next keyframe's ISNet plane moved back to it, each weighted by how near its keyframe is. A
   * subject that changes shape drifts from a matte moved one way; moved from both sides, the two
   * errors fall on either side of the true outline and part cancel. Offline, ISNet (int8) on every
   * 2nd frame, scored on the frames between (IoU at 0.5), forward -> both ways: DAVIS dog 0.858 ->
   * 0.924 (at 640x640), car-roundabout 0.971 -> 0.976 (1024x1024), car-slide 0.951 -> 0.953.
   *
   * Only where the next run is already planned (`planAhead`: its frame, region and size hold) and its
   * frame is among those in flight, so the frame waits for it no longer than the frames in flight
   * do; and only where the two moved mattes agree and the backward one keeps every object the edge
   * cuts: a subject leaving the frame, or a cut, keeps the forward matte alone.
   *
   * The wait for the next run's plane is returned, to be awaited in `matting`: the next keyframe's
   * planes are decided meanwhile, and once the plane is in, the keyframe plans and starts the run
   * after it before this frame's own work goes on. Awaited here, ISNet idled through that work:
   * forward only / both ways, ms a frame (Intel Xeon, 2 cores, interleaved), car-slide 228-230 /
   * 243-249 before, 232-234 / 230-232 after; DAVIS car-roundabout 208-211 / 219-226, 209-215 / 214-219.
   */
  private async betweenKeyframes(index: number, small: Buffer): Promise<Float32Array | (() => Promise<Float32Array>)> {
    const { width, height } = this.matteSize;
    const forward = this.propagator.propagate(small, width, height);
    const next = this.ahead;
    if (!this.given.fedAhead || !next || next.index <= index || next.index - index >= this.framesInFlight) return forward;
    if (!(await this.given.waitFor(next.index))) return forward;
    const frame = this.given.get(next.index);
    // no run was started on a blank frame (startAhead)
    const run = next.probabilities;
    if (!frame || !run) return forward;
    const objects = objectTracks(this.subjects.subjects).map((t) => ({ ...t.box }));
    const sinceLast = this.framesSinceSalient + 1;
    const untilNext = next.index - index;
    return async () => {
      const plane = await run.catch(() => undefined);
      if (!plane) return forward;
      await nextTurnOfTheLoop(); // the keyframe woken by the same plane starts the run after it first
      if (this.backwardFrom !== next) this.backward.setKeyframe(frame.small, width, height, plane, width, height);
      this.backwardFrom = next;
      const backward = this.backward.propagate(small, width, height);
      if (maskIou(forward, backward, 0.5) < BOTH_WAYS_AGREE || lostAtEdge({ width, height, fresh: backward, moved: forward }, objects)) return forward;
      return blendInto(backward, forward, sinceLast / (sinceLast + untilNext));
    };
  }

  feedsAhead(): void {
    this.given.feedsAhead();
  }

  framesEnded(): void {
    this.given.ended();
  }

  /** starts the planned run once its frame has been given; none on a blank frame, whose matte reads no model (`nothingIn`) */
  private startAhead(): void {
    const ahead = this.ahead;
    const given = ahead && !ahead.probabilities && this.given.get(ahead.index);
    if (!ahead || !given || given.blank) return;
    ahead.probabilities = this.salientAround(given.data, ahead.region, { scale: ahead.scale });
    ahead.probabilities.catch(() => undefined); // awaited at its turn, or not used
  }

  /** ISNet's plane of frame `index` at `scale`: the run started ahead for it when it is that run, else a run now */
  private salientOn(index: number, rgb: Uint8Array, region: Box | undefined, scale: IsnetScale): Promise<Float32Array> {
    const ahead = this.ahead;
    this.ahead = undefined;
    if (ahead?.probabilities && ahead.index === index && ahead.scale === scale && sameRegion(ahead.region, region)) {
      this.keyframesAhead++;
      return ahead.probabilities;
    }
    return this.salientAround(rgb, region, { scale });
  }

  /**
   * A later keyframe: ISNet's plane averaged with the last keyframe's matte moved to it
   * (KEYFRAME_BLEND), or that moved matte alone where ISNet lost an object leaving the frame.
   */
  private async laterKeyframe(frame: RgbFrame, small: Buffer, region: Box | undefined): Promise<Float32Array> {
    const { width, height } = this.matteSize;
    const moved = this.propagator.propagate(small, width, height);
    const { plane, agreement } = await this.sizedPlane(frame, region, moved);
    this.interval.observe(agreement);
    const objects = objectTracks(this.subjects.subjects).map((t) => t.box);
    if (lostAtEdge({ width, height, fresh: plane, moved }, objects)) return moved;
    // into a copy: the plane is the run's, which the frames before may still read (betweenKeyframes)
    return blendInto(Float32Array.from(plane), moved, KEYFRAME_BLEND);
  }

  /**
   * ISNet's plane of a later keyframe at the size isnet-scale.ts picks, and how well it matches the
   * moved matte. Where a check is due, the other size runs too on the same frame and region, and
   * the full size's plane is the one returned.
   */
  private async sizedPlane(frame: RgbFrame, region: Box | undefined, moved: Float32Array): Promise<{ plane: Float32Array; agreement: number }> {
    const scale = this.scales.next;
    const plane = await this.salientOn(frame.index, frame.data, region, scale);
    const agreement = maskIou(moved, plane, 0.5);
    if (!this.scales.needsCheck(agreement)) {
      if (scale === 'small') this.keyframesSmall++;
      return { plane, agreement };
    }
    const other = await this.salientAround(frame.data, region, { scale: scale === 'small' ? 'full' : 'small' });
    const full = scale === 'small' ? { plane: other, agreement: maskIou(moved, other, 0.5) } : { plane, agreement };
    this.scales.checked(maskIou(plane, other, 0.5), full.agreement);
    return full;
  }

  /** a shot's first keyframe: ISNet's full size both ways (`salientBothWays`), and its small size to decide the next keyframes' (isnet-scale.ts) */
  private async firstKeyframe(rgb: Uint8Array, region: Box | undefined): Promise<Float32Array> {
    const full = await this.salientBothWays(rgb, region);
    this.scales.start(maskIou(await this.salientAround(rgb, region, { scale: 'small' }), full, 0.5));
    return full;
  }

  /**
   * A shot's first keyframe: the mean of ISNet's planes of the frame and of its mirror image. Later
   * keyframes are averaged with the last one's moved matte (KEYFRAME_BLEND); the first has none, and
   * a single run of ISNet now and then misses part of its subject in one view and not in the other.
   * Measured on 26 frames of nine clips (frames 0, 20 and 40, whole frames): IoU as they are 0.813,
   * mirrored 0.839, the mean of both 0.843; on the nine first frames 0.765 -> 0.773 (car-slide's car
   * cut by the frame's edge 0.853 -> 0.888). Mirrored views on every 2nd keyframe instead (no
   * extra run) made car-slide worse (0.956 -> 0.951) and its matte flicker more (dtSSD 2.7 -> 3.2).
   */
  private async salientBothWays(rgb: Uint8Array, region: Box | undefined): Promise<Float32Array> {
    const [plain, mirrored] = [await this.salientAround(rgb, region, { scale: 'full' }), await this.salientAround(rgb, region, { scale: 'full', mirrored: true })];
    return blendInto(plain, mirrored, 0.5);
  }

  /**
   * ISNet on `region` of the frame (see subject-crop.ts: a crop around the subjects is sharper),
   * not on pillarbox bars (pictureForSquareModel), pasted back at the frame's place; at the
   * matte's size. `scale`: ISNet's input size
   * (isnet-scale.ts); `mirrored`: ISNet sees the mirror image, and its plane is mirrored back.
   */
  private async salientAround(rgb: Uint8Array, region: Box | undefined, { scale, mirrored = false }: { scale: IsnetScale; mirrored?: boolean }): Promise<Float32Array> {
    const { width, height } = this.input;
    const segmenter = this.isnet[scale];
    const isnet = { width: segmenter.width, height: segmenter.height };
    const size = this.matteSize;
    const probabilities = async (image: Uint8Array, imageWidth: number, imageHeight: number): Promise<Float32Array> => {
      if (!mirrored) return segmenter.probabilities(image, imageWidth, imageHeight);
      const plane = await segmenter.probabilities(mirrorRows(image, imageWidth, imageHeight, 3), imageWidth, imageHeight);
      return mirrorRows(plane, isnet.width, isnet.height, 1);
    };
    const seen = withinPicture(region, pictureForSquareModel(rgb, width, height, this.aspect));
    if (!seen) return resizePlane({ ...isnet, data: await probabilities(rgb, width, height) }, size.width, size.height);
    const rect = toPixelRect(seen, width, height);
    const pasted = pastePlane(await probabilities(cropRgb(rgb, width, rect), rect.width, rect.height), isnet.width, isnet.height, rect, width, height);
    return width === size.width && height === size.height ? pasted : resizePlane({ width, height, data: pasted }, size.width, size.height);
  }

  /** frees the recurrent state on RVM's thread (the models are shared by videos) */
  async close(): Promise<void> {
    this.framesEnded();
    await this.rvm.close();
  }
}

/** a frame given to the session and not yet finished */
interface GivenFrame {
  data: Uint8Array;
  /** at the matte's size */
  small: Buffer;
  blank: boolean;
}

/** a frame's matte to come, once its planes are in and the frames before it have theirs */
interface MatteToCome {
  matte: Promise<Matte>;
}

/** the subjects as they are now: their tracks, and the tracks' boxes, move on with the frames after */
function snapshotOf(subjects: MainSubjects): MainSubjects {
  const copies = new Map<Track, Track>();
  const copy = (track: Track): Track => {
    let copied = copies.get(track);
    if (!copied) copies.set(track, (copied = { ...track, box: { ...track.box } }));
    return copied;
  };
  return { chosen: subjects.chosen.map(copy), attached: subjects.attached.map(copy), all: subjects.all.map(copy) };
}

const nextTurnOfTheLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

function sameRegion(a: Box | undefined, b: Box | undefined): boolean {
  return a === b || (!!a && !!b && a.x0 === b.x0 && a.y0 === b.y0 && a.x1 === b.x1 && a.y1 === b.y1);
}

/** target = weight * target + (1 - weight) * other, in place */
export function blendInto(target: Float32Array, other: Float32Array, weight: number): Float32Array {
  for (let i = 0; i < target.length; i++) target[i] = weight * target[i] + (1 - weight) * other[i];
  return target;
}

export interface OriginalModelParts {
  isnet: (size: { width: number; height: number }) => Promise<IsnetSegmenter>;
  rvm: (geometry: RvmGeometry) => Promise<RvmMatter>;
  detector: () => Promise<NanodetDetector>;
}

/** `original`: the video's main subject, people from RVM, everything else from ISNet. */
export class OriginalModel implements SegmentationModel {
  readonly name = 'original' as const;

  constructor(private readonly parts: OriginalModelParts) {}

  async createSession(options: SessionOptions): Promise<OriginalSession> {
    const [full, small, rvm, detector] = await Promise.all([
      this.parts.isnet(isnetInputSizeFor(options.width, options.height)),
      this.parts.isnet(SMALL_ISNET_SIZE),
      openPeopleRvm(this.parts.rvm, options.width, options.height),
      this.parts.detector(),
    ]);
    return new OriginalSession({ full, small }, rvm, new MainSubjectFinder(detector), options);
  }
}
