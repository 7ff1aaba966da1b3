import * as ort from 'onnxruntime-node';
import { openOnnxSession } from '../runtime/onnx-session';
import { prepareRvmModel, RvmGeometry } from './rvm-model-file';

const STATE_NAMES = ['r1', 'r2', 'r3', 'r4'] as const;

export interface RvmOutput {
  /** alpha 0..1, width x height */
  alpha: Float32Array;
  /** foreground colour 0..1, packed RGB, width x height x 3 */
  foreground: Float32Array;
}

/**
 * One onnxruntime session of Robust Video Matting at a fixed geometry. The recurrent state is
 * not kept here (sessions are shared by videos): each RvmStream carries its own.
 */
export class RvmMatter {
  private constructor(
    private readonly session: ort.InferenceSession,
    readonly geometry: RvmGeometry,
  ) {}

  static async open(geometry: RvmGeometry, cacheDir: string, threads?: number): Promise<RvmMatter> {
    return new RvmMatter(await openOnnxSession(prepareRvmModel(geometry, cacheDir), threads), geometry);
  }

  get width(): number {
    return this.geometry.width;
  }

  get height(): number {
    return this.geometry.height;
  }

  /** a fresh recurrent state for one video */
  stream(): RvmStream {
    return new RvmStream(this.session, this.geometry);
  }

  close(): Promise<void> {
    return this.session.release();
  }
}

/** RVM over one video: frames in order, the recurrent state carried from each to the next. */
export class RvmStream {
  private state: Record<string, ort.Tensor> | undefined;

  constructor(
    private readonly session: ort.InferenceSession,
    private readonly geometry: RvmGeometry,
  ) {}

  /** forget the past frames (after a scene cut) */
  reset(): void {
    this.state = undefined;
  }

  /** `rgb`: packed RGB24 of exactly the geometry's width x height */
  async next(rgb: Uint8Array): Promise<RvmOutput> {
    const { width, height } = this.geometry;
    if (rgb.length !== width * height * 3) throw new RangeError(`RVM input must be ${width}x${height} RGB24`);
    const feeds: Record<string, ort.Tensor> = { src: new ort.Tensor('uint8', rgb, [1, height, width, 3]), ...(this.state ?? this.zeroState()) };
    const result = await this.session.run(feeds);
    this.state = Object.fromEntries(STATE_NAMES.map((name) => [`${name}i`, result[`${name}o`]]));
    return { alpha: result.pha.data as Float32Array, foreground: result.fgr.data as Float32Array };
  }

  private zeroState(): Record<string, ort.Tensor> {
    const feeds: Record<string, ort.Tensor> = {};
    for (const meta of this.session.inputMetadata) {
      if (meta.name === 'src' || !meta.isTensor) continue;
      const shape = meta.shape.map(Number);
      feeds[meta.name] = new ort.Tensor('float32', new Float32Array(shape.reduce((a, b) => a * b, 1)), shape);
    }
    return feeds;
  }
}
