import { DEFAULT_INTRA_OP_THREADS } from '../runtime/onnx-session';
import { OnnxThread } from '../runtime/onnx-thread';
import { ISNET_EXPORT_SIZE } from './isnet-graph';
import { IsnetInputSize, prepareIsnetModel } from './isnet-model-file';

/**
 * ISNet input size: the square the model was trained and exported at, the frame stretched to it.
 * Measured on the 640x360 test clips (IoU portrait / car): 1024x1024 0.980 / 0.948, 768x768
 * 0.974 / 0.917, 512x512 0.963 / 0.315, and aspect-preserving 1024x576 0.984 / 0.650: smaller or
 * non-square inputs change what the model sees as the salient object, so speed comes from
 * keyframes instead of a smaller input.
 */
export function isnetInputSizeFor(_width: number, _height: number): IsnetInputSize {
  return { width: ISNET_EXPORT_SIZE, height: ISNET_EXPORT_SIZE };
}

/**
 * ISNet foreground probability per pixel, at the input size. int8 unless `size.precision` says
 * float32 (isnet-int8.ts: 2.5x less CPU a run at the same masks). It runs on an inference thread of
 * its own (runtime/onnx-thread.ts), on both cores.
 */
export class IsnetSegmenter {
  private constructor(
    private readonly thread: OnnxThread,
    readonly width: number,
    readonly height: number,
  ) {}

  static async open(cacheDir: string, size: IsnetInputSize): Promise<IsnetSegmenter> {
    const thread = await OnnxThread.open('ISNet', { modelPath: prepareIsnetModel(cacheDir, { precision: 'int8', ...size }), threads: DEFAULT_INTRA_OP_THREADS });
    return new IsnetSegmenter(thread, size.width, size.height);
  }

  /**
   * The plane at ISNet's input size (width x height) of `rgb`, packed RGB24 of `rgbWidth` x
   * `rgbHeight` (ISNet's size unless given; the model scales it: isnet-graph.ts), copied: the caller keeps it
   */
  async probabilities(rgb: Uint8Array, rgbWidth = this.width, rgbHeight = this.height): Promise<Float32Array> {
    if (rgb.length !== rgbWidth * rgbHeight * 3 || rgbWidth < 1 || rgbHeight < 1) throw new RangeError(`ISNet input must be ${rgbWidth}x${rgbHeight} RGB24`);
    return this.thread.run({ type: 'uint8', data: new Uint8Array(rgb), dims: [1, rgbHeight, rgbWidth, 3] });
  }

  close(): Promise<void> {
    return this.thread.close();
  }
}
