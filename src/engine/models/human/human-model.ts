import { SegmentationModel, SegmentationSession, SessionOptions } from '../../types';
import { RvmMatter } from '../rvm/rvm-matter';
import { RvmGeometry } from '../rvm/rvm-model-file';
import { RVM_PROFILES, rvmGeometryFor, rvmInputSize } from '../rvm/rvm-geometry';
import { RvmSession } from '../rvm/rvm-session';

/** the size `human` works at: the video's aspect ratio, long side at most 640 (even sizes) */
export function humanWorkingSize(width: number, height: number, longSide = 640): { width: number; height: number } {
  return rvmInputSize(width, height, longSide);
}

/**
 * `human`: Robust Video Matting, a recurrent video-matting model trained on people, its state
 * carried from frame to frame (reset at hard cuts), its encoder at 480 px on the long side (see
 * rvm-geometry.ts for the measurements behind that). It stays fp32: with its larger convolutions in
 * int8 (rvm-int8.ts, 13% less CPU) the DAVIS people mean fell from 0.853 to 0.848, under its floor.
 */
export class HumanModel implements SegmentationModel {
  readonly name = 'human' as const;

  constructor(private readonly rvm: (geometry: RvmGeometry) => Promise<RvmMatter>) {}

  async createSession(options: SessionOptions): Promise<SegmentationSession> {
    return new RvmSession(await this.rvm(rvmGeometryFor(options.width, options.height, RVM_PROFILES.human)));
  }
}
