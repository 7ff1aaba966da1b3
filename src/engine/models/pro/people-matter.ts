import { resizePlane, resizeRgb } from '../image/resample';
import { RvmSession } from '../rvm/rvm-session';

/**
 * RVM for `pro`'s people: run on every frame at RVM's own geometry (the video's aspect ratio;
 * `pro`'s input is ISNet's stretched square), its recurrent state carried, its alpha brought to
 * `pro`'s size. Each person track then keeps this matte inside its box.
 */
export class PeopleMatter {
  constructor(private readonly rvm: RvmSession) {}

  async alphaAt(rgb: Uint8Array, width: number, height: number, index: number): Promise<Float32Array> {
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
