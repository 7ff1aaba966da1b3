import { SegmentationModel, SegmentationSession, SessionOptions } from '../../types';
import { MainSubjectFinder } from '../pro/main-subjects';
import { NanodetDetector } from '../pro/nanodet-detector';
import { RvmMatter } from '../rvm/rvm-matter';
import { RvmGeometry } from '../rvm/rvm-model-file';
import { pipelinedGeometryFor, RVM_PROFILES, RvmProfile, rvmInputSize } from '../rvm/rvm-geometry';
import { RvmSession } from '../rvm/rvm-session';
import { openPeopleRvmSession } from '../rvm/picture-rvm';
import { MainPeopleSession } from './main-people-session';

/** the size `human` works at: the video's aspect ratio, long side at most 640 or a 16:9 frame's pixels (rvmInputSize) */
export function humanWorkingSize(width: number, height: number, longSide = 640): { width: number; height: number } {
  return rvmInputSize(width, height, longSide);
}

const HUMAN_FRAMES_IN_FLIGHT = 4;

/**
 * The detector runs on every 8th frame once people are chosen, not every 4th as for `original`:
 * RVM's matte carries the people from frame to frame, and their regions are kept by the previous
 * frame's matte between keyframes (subject-matte.ts). bench:matting, every 4th -> every 8th, the
 * session alone on a quiet AMD EPYC Zen 5: the same IoU to 0.0003 or better (portrait-pan 0.9771,
 * own composites 0.9484-0.9873, rollerblade 0.8763 -> 0.8766, swing 0.8225 -> 0.8249,
 * breakdance-flare 0.9120, kite-walk 0.5968 -> 0.5970) for 7-10% less time a frame (portrait-pan
 * 45.7 -> 42.0 ms, the own composites 42.5-43.3 -> 37.9-39.6). Someone who walks in is chosen up
 * to a third of a second later.
 */
const HUMAN_KEYFRAME_INTERVAL = 8;

/** what `human` and `light` are made of: RVM at a geometry, and the detector that finds the main people */
export interface PeopleModelParts {
  rvm: (geometry: RvmGeometry) => Promise<RvmMatter>;
  detector: () => Promise<NanodetDetector>;
}

/**
 * `human`: Robust Video Matting, a recurrent video-matting model trained on people, its state
 * carried from frame to frame (reset at hard cuts), its encoder at 640 px on the long side (see
 * rvm-geometry.ts for the measurements behind that), its larger convolutions in int8 wherever
 * onnxruntime has int8 arithmetic (rvm-int8.ts, rvmPrecision), kept on the video's main people. With VNNI,
 * int8 costs about 15% less CPU end to end (224 against 262 ms a frame with decode and encode, 7.4
 * against 6.6 fps at 640x360 in one bench:matting run) for a DAVIS people mean of 0.867 against
 * 0.871 in fp32 (0.870 since int8's multiply-add bound, rvm-int8.ts), and scores the out-of-frame
 * composite higher (0.954 against 0.935). RVM runs pipelined (RvmGeometry.stages: the encoder of
 * the next frame on its own thread beside the recurrent decoder of this one, one onnxruntime thread
 * each; without VNNI the decoder itself in two stages, rvmStages): one run on two onnxruntime threads
 * took 116-124 ms for 185-196 ms of CPU, against 167-178 ms on one, so the two stages side by side
 * waste less than one run split over two threads. End to end
 * at 640x360, interleaved runs on a loaded day: 7.3-7.7 -> 8.6-9.0 fps, at 1280x720 6.4-6.5 -> 7.9-8.0.
 *
 * A second, smaller RVM (`light`'s, 320 px) mattes each frame's mirror image on a state of its own
 * and trims the matte where it firmly sees background (rvm-session.ts, `smallMirror`): RVM now and
 * then takes a patch of the background joined to a person for the person, and the mirrored pass
 * does not share that error. bench:matting's quality section (Intel Xeon with VNNI, IoU at 0.5),
 * one pass -> trimmed at SMALL_MIRROR_SHARE 0.3 / 0.4 / 0.5: out-of-frame 0.948 -> 0.966 / 0.972 /
 * 0.979, passers-by 0.970 -> 0.974 / 0.977 / 0.981, turning 0.980 -> 0.983 (all three), portrait-pan
 * 0.9771 -> 0.9767 / 0.9764 / 0.9759; DAVIS rollerblade 0.877 -> 0.878 (all three), swing 0.825 ->
 * 0.824 / 0.824 / 0.823, breakdance-flare 0.912 -> 0.912 / 0.911 / 0.908. 0.4 keeps the DAVIS people's
 * mean (0.871). Blending the passes on every pixel instead raised MAD on every clean clip (passers-by
 * +35%): the 320 px matte, scaled up, does not hold `human`'s edges; trimmed only, MAD falls on the
 * composites (out-of-frame 5.9 -> 4.8 x1e-3). The full-size mirrored pair (`original`'s) would cost
 * twice RVM's time; this pass cost 7-10% more CPU a frame at 640x360 and 9-23% at 1280x720
 * (interleaved on a loaded Intel Xeon; docs/engine-measurements.md, 30 November 2026, a later session).
 * Where RVM is sure of such a patch the trim leaves it over 0.5; it is dropped where its colours are
 * also the background's, not the person's (background-colours.ts): out-of-frame 0.962 -> 0.974 on an
 * AVX2-only AMD EPYC (2 December 2026), about 0.8 ms a frame at 640x360.
 *
 * Where the video has letterbox or pillarbox bars and the picture has more pixels than `human`'s
 * 640 px give it in the whole frame (a phone's upright picture in a 1280x720 frame: 202x360), RVM is
 * shown the picture alone at its own size (360x640), as `light` is (picture-rvm.ts). bench:matting,
 * the composites' pictures scaled up 2x into 1280x720 frames: turning as a phone's picture 0.975 ->
 * 0.987, portrait-pan 0.974 -> 0.986; between 2.39:1 letterbox bars (RVM at 740x312) turning 0.963
 * -> 0.979, portrait-pan 0.967 -> 0.974, two-people 0.979 -> 0.983; for 2-15% more CPU a frame on
 * such videos (the frames decoded at 1140x640 and 740x416). In a 640x360 frame the picture already
 * reaches RVM at its own pixels, and the whole frame is kept.
 */
export class HumanModel implements SegmentationModel {
  readonly name = 'human' as const;
  readonly mayHandOver = true;

  constructor(private readonly parts: PeopleModelParts) {}

  async createSession(options: SessionOptions): Promise<SegmentationSession> {
    const open = async (width: number, height: number) => {
      const geometry = (profile: RvmProfile) => pipelinedGeometryFor(width, height, profile);
      const [rvm, smallMirror] = await Promise.all([this.parts.rvm(geometry(RVM_PROFILES.human)), this.parts.rvm(geometry(RVM_PROFILES.light))]);
      return new RvmSession(rvm, { smallMirror, backgroundColours: true });
    };
    const [people, detector] = await Promise.all([openPeopleRvmSession(options, RVM_PROFILES.human, open), this.parts.detector()]);
    return new MainPeopleSession('human', options, people, new MainSubjectFinder(detector, true, HUMAN_KEYFRAME_INTERVAL), HUMAN_FRAMES_IN_FLIGHT);
  }
}
