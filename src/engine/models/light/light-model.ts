import { SegmentationModel, SegmentationSession, SessionOptions } from '../../types';
import { PeopleModelParts } from '../human/human-model';
import { MainPeopleSession } from '../human/main-people-session';
import { MainSubjectFinder } from '../pro/main-subjects';
import { pipelinedGeometryFor, RVM_PROFILES } from '../rvm/rvm-geometry';
import { RvmSession } from '../rvm/rvm-session';
import { openPeopleRvmSession } from '../rvm/picture-rvm';

/**
 * enough frames queued that neither of RVM's stages waits for the engine's thread, nor for ffmpeg
 * when the scheduler gives it the core for a while: at 640x360 on an AVX2-only EPYC (Zen 3, fp32)
 * 5 took `light` from a median 1.11 (3 frames, 8 runs) to 1.08 (13 runs) of its CPU-bound minimum,
 * interleaved; 4 stood between
 */
const LIGHT_FRAMES_IN_FLIGHT = 5;

/**
 * The detector runs on every 16th frame, before anyone is chosen too (main-subjects.ts,
 * `keyframesOnly`): beside `light`'s RVM it is not cheap (about 45 ms a run at 416 px against 32 ms
 * of CPU for a frame of `light`). Measured against every 8th frame (bench:davis, whole clips): the
 * same IoU within 0.001 on the project's composites and DAVIS people but rollerblade (0.702 ->
 * 0.710). Someone who walks in is chosen up to 0.64 s later at 25 fps.
 */
const LIGHT_KEYFRAME_INTERVAL = 16;

/**
 * `light`: Robust Video Matting at a small size (long side 320, the encoder at the same size;
 * rvm-geometry.ts says why), its larger convolutions in int8 wherever onnxruntime has int8
 * arithmetic (rvm-int8.ts, rvmPrecision), pipelined: the encoder of the next frame runs on its own
 * thread beside the recurrent decoder of this one, without VNNI itself in two stages (rvm-model-file.ts,
 * rvmStages). At its former 384 / 256 size pipelining took it from 46-50 to 63-66 fps at 640x360
 * (README, Tests and benchmarks). MediaPipe's selfie model, run per frame, was faster but
 * collapsed on portraits the project had not seen (IoU 0.47) and flickers (portrait-pan dtSSD 14.4
 * against RVM's 4.0).
 *
 * Kept on the video's main people as `human` is (main-people-session.ts): before, `light` kept
 * everyone RVM saw, 0.739 on the composite of a subject before two bystanders, under the issue's
 * floor of 0.85 on every portrait clip. bench:davis, whole clips, everyone -> the main people: the
 * bystanders 0.739 -> 0.977; approach 0.956 -> 0.961, out-of-frame 0.970 -> 0.972, two-people 0.964 ->
 * 0.969, turning 0.934 -> 0.942, flicker (dtSSD) 4.0-5.6 -> 3.0-4.0 on all five (RVM's stray specks
 * away from the people go); portrait-pan 0.958 and DAVIS swing, breakdance-flare, kite-walk within
 * 0.002, rollerblade 0.697 -> 0.710. For about 8 ms more CPU a frame: bench:matting on a shared
 * AMD EPYC Zen 4, two interleaved pairs, 50.5 / 52.2 -> 41.0 / 42.0 fps at 640x360 and 36.3 / 37.1
 * -> 31.4 / 32.4 at 1280x720, 1.05-1.10 of the CPU-bound minimum either way.
 *
 * Where the video's first frame has letterbox or pillarbox bars (SessionOptions.picture), RVM is
 * shown the picture alone, at the size the picture would get as a video of its own (picture-rvm.ts):
 * at 320 px on the long side a phone's upright picture between bars in a 640x360 frame reached RVM
 * 101x180 px. bench:matting, IoU at 0.5, whole frame -> the picture: turning as a phone's picture
 * 0.917 -> 0.982, portrait-pan 0.912 -> 0.972; between letterbox bars (2.39:1) turning 0.895 ->
 * 0.919, portrait-pan 0.930 -> 0.953, two-people 0.928 -> 0.927. The frames are decoded larger
 * (570x320 for the phone's picture), which costs more on such videos only. The bars' lines that the
 * picture's box (found on a coarser still) holds along its edges are left out of the matte: between
 * letterbox bars two-people 0.929 -> 0.950, turning 0.919 -> 0.933; at CRF 40 turning 0.866 ->
 * 0.885, portrait-pan 0.910 -> 0.920 (picture-bars.ts, pictureWithoutBarEdges).
 */
export class LightModel implements SegmentationModel {
  readonly name = 'light' as const;
  readonly mayHandOver = true;

  constructor(private readonly parts: PeopleModelParts) {}

  async createSession(options: SessionOptions): Promise<SegmentationSession> {
    const open = async (width: number, height: number) => new RvmSession(await this.parts.rvm(pipelinedGeometryFor(width, height, RVM_PROFILES.light)));
    const [people, detector] = await Promise.all([openPeopleRvmSession(options, RVM_PROFILES.light, open), this.parts.detector()]);
    const subjects = new MainSubjectFinder(detector, true, LIGHT_KEYFRAME_INTERVAL, true);
    return new MainPeopleSession('light', options, people, subjects, LIGHT_FRAMES_IN_FLIGHT);
  }
}
