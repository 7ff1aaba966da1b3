import { Matte, RgbFrame, SegmentationModel, SegmentationSession, SessionOptions } from '../../types';
import { PeopleSeen } from '../people-seen';
import { RvmMatter } from '../rvm/rvm-matter';
import { pipelinedAt, RvmGeometry } from '../rvm/rvm-model-file';
import { RVM_PROFILES, rvmGeometryFor } from '../rvm/rvm-geometry';
import { rvmPrecision } from '../rvm/rvm-int8';
import { RvmSession } from '../rvm/rvm-session';

/**
 * enough frames queued that neither of RVM's stages waits for the engine's thread, nor for ffmpeg
 * when the scheduler gives it the core for a while: at 640x360 on an AVX2-only EPYC (Zen 3, fp32)
 * 5 took `light` from a median 1.11 (3 frames, 8 runs) to 1.08 (13 runs) of its CPU-bound minimum,
 * interleaved; 4 stood between
 */
const LIGHT_FRAMES_IN_FLIGHT = 5;

/** RVM over one video, saying in its notes when it kept no one (people-seen.ts). */
class LightSession extends RvmSession {
  private readonly seen = new PeopleSeen('light');
  /** RVM runs pipelined (rvmStages): the encoder on the next frames beside the decoder on this one */
  readonly framesInFlight = LIGHT_FRAMES_IN_FLIGHT;

  override get notes(): string[] {
    return this.seen.notes;
  }

  override async segment(frame: RgbFrame): Promise<Matte> {
    const matte = await super.segment(frame);
    this.seen.observe(matte.data);
    return matte;
  }
}

/**
 * `light`: Robust Video Matting at a small size (long side 320, the encoder at the same size;
 * rvm-geometry.ts says why), its larger convolutions in int8 where the CPU has 8-bit dot products
 * (rvm-int8.ts, rvmPrecision), pipelined: the encoder of the next frame runs on its own thread
 * beside the recurrent decoder of this one, in fp32 itself in two stages (rvm-model-file.ts,
 * rvmStages). At its former 384 / 256 size pipelining took it from 46-50 to 63-66 fps at 640x360
 * (README, Tests and benchmarks). MediaPipe's selfie model, run per frame, was faster but
 * collapsed on portraits the project had not seen (IoU 0.47) and flickers (portrait-pan dtSSD 14.4
 * against RVM's 4.0).
 */
export class LightModel implements SegmentationModel {
  readonly name = 'light' as const;

  constructor(private readonly rvm: (geometry: RvmGeometry) => Promise<RvmMatter>) {}

  async createSession(options: SessionOptions): Promise<SegmentationSession> {
    return new LightSession(await this.rvm({ ...rvmGeometryFor(options.width, options.height, RVM_PROFILES.light), ...pipelinedAt(rvmPrecision()) }));
  }
}
