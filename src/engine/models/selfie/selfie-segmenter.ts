import * as ort from 'onnxruntime-node';
import { openOnnxSession, runSingle } from '../runtime/onnx-session';
import { prepareSelfieModel, SELFIE_NATIVE_SIZE, SelfieVariant } from './selfie-model-file';

/** Person probability per pixel from MediaPipe's selfie model, at the model's input size. */
export class SelfieSegmenter {
  private constructor(
    private readonly session: ort.InferenceSession,
    readonly width: number,
    readonly height: number,
  ) {}

  /** `size` (H, W multiples of 16) defaults to the variant's native input */
  static async open(variant: SelfieVariant, cacheDir: string, size: { width: number; height: number } = SELFIE_NATIVE_SIZE[variant], threads?: number): Promise<SelfieSegmenter> {
    const session = await openOnnxSession(prepareSelfieModel(variant, cacheDir, size), threads);
    return new SelfieSegmenter(session, size.width, size.height);
  }

  /** `rgb`: packed RGB24 of exactly width x height */
  async probabilities(rgb: Uint8Array): Promise<Float32Array> {
    if (rgb.length !== this.width * this.height * 3) throw new RangeError(`selfie input must be ${this.width}x${this.height} RGB24`);
    return runSingle(this.session, new ort.Tensor('uint8', rgb, [1, this.height, this.width, 3]));
  }

  close(): Promise<void> {
    return this.session.release();
  }
}
