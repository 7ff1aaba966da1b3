import { resizePlane, resizeRgb } from '../image/resample';
import { RvmSession } from '../rvm/rvm-session';

/**
 * RVM for `pro`'s people: run at RVM's own geometry (the video's aspect ratio; `pro`'s input is
 * ISNet's stretched square), its recurrent state carried from frame to frame, its alpha brought to
 * `pro`'s size. Each person track then keeps this matte inside its box. `pro` asks for it on the
 * detector's keyframes and on every frame while a person is tracked; a frame it was not asked for
 * breaks the recurrent state, and the next frame starts afresh (as after a scene cut).
 */
export class PeopleMatter {
  /** the index of the last frame RVM saw */
  private lastIndex?: number;
  /** how many frames RVM ran on (for tests and benchmarks) */
  ran = 0;

  constructor(private readonly rvm: RvmSession) {}

  async alphaAt(rgb: Uint8Array, width: number, height: number, index: number): Promise<Float32Array> {
    if (this.lastIndex !== undefined && index !== this.lastIndex + 1) this.rvm.restart();
    this.lastIndex = index;
    this.ran++;
    const { inputWidth, inputHeight } = this.rvm;
    const data = Buffer.from(resizeRgb(rgb, width, height, inputWidth, inputHeight).buffer);
    await this.rvm.segment({ index, width: inputWidth, height: inputHeight, data });
    return resizePlane({ width: inputWidth, height: inputHeight, data: this.rvm.last!.alpha }, width, height);
  }

  /** frees the recurrent state on RVM's thread (the model is shared by videos) */
  close(): Promise<void> {
    return this.rvm.close();
  }
}
