import { RgbFrame } from '../../types';
import { resizePlane, resizeRgb } from '../image/resample';
import { RvmFrames, RvmOnDemand } from '../rvm/rvm-on-demand';
import { RvmSession } from '../rvm/rvm-session';

/**
 * RVM for `pro`'s people: run at RVM's own geometry (the video's aspect ratio; `pro`'s input is
 * ISNet's stretched square), its recurrent state carried from frame to frame, its alpha brought to
 * `pro`'s size. Each person track then keeps this matte inside its box. `pro` reads it on the
 * detector's keyframes and on every frame while a person is tracked.
 *
 * Frames are given as they arrive (`add`); while a person is tracked they go to RVM at once, so RVM
 * works on the next frames while `pro` finishes this one (frames in flight, as in `original`:
 * rvm-on-demand.ts). Whether a frame goes ahead is decided by the frame `lag` frames before it, so
 * RVM sees the same frames however fast they arrive. A frame RVM was not shown breaks its
 * recurrent state, and the next frame it sees starts afresh (as after a scene cut).
 */
export class PeopleMatter {
  private readonly frames: RvmOnDemand;

  constructor(
    private readonly rvm: RvmSession,
    lag: number,
  ) {
    const atRvmSize: RvmFrames = {
      matte: (frame) => {
        const { inputWidth: width, inputHeight: height } = rvm;
        return rvm.matte({ index: frame.index, width, height, data: Buffer.from(resizeRgb(frame.data, frame.width, frame.height, width, height).buffer) });
      },
      restart: () => rvm.restart(),
    };
    // no person is tracked before the first frame: the first frames go to RVM only when read
    this.frames = new RvmOnDemand(atRvmSize, lag, false);
  }

  /** how many frames RVM ran on (for tests and benchmarks) */
  get ran(): number {
    return this.frames.ran;
  }

  /** the next frame, at `pro`'s size, in order; returns its sequence number. `held`: it does not go ahead (a blank frame, which is skipped) */
  add(frame: RgbFrame, held = false): number {
    return this.frames.add(frame, held);
  }

  /** RVM's alpha of frame `sequence` at `pro`'s size (RVM runs now if the frame did not go ahead) */
  async alphaOf(sequence: number, width: number, height: number): Promise<Float32Array> {
    const { alpha } = await this.frames.take(sequence);
    return resizePlane({ width: this.rvm.inputWidth, height: this.rvm.inputHeight, data: alpha }, width, height);
  }

  /** frame `sequence`'s people are not read */
  skip(sequence: number): void {
    this.frames.skip(sequence);
  }

  /** frame `sequence` is finished; `personTracked`: the frames `lag` on go to RVM as they arrive */
  finished(sequence: number, personTracked: boolean): void {
    this.frames.setMode(sequence, personTracked);
  }

  /** frees the recurrent state on RVM's thread (the model is shared by videos) */
  close(): Promise<void> {
    return this.rvm.close();
  }
}
