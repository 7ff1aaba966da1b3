import { Matte, RgbFrame, SegmentationModel, SegmentationSession, SessionOptions } from '../../types';
import { boxMean } from '../image/box-filter';
import { resizePlane, resizeRgb, toAlphaBytes } from '../image/resample';
import { IsnetSegmenter } from '../isnet/isnet-segmenter';
import { SelfieSegmenter } from '../selfie/selfie-segmenter';
import { selfieInputSizeFor } from '../selfie/selfie-size';
import { KeyframePropagator } from '../temporal/keyframe-propagator';

/** the size `human` works at: the video's aspect ratio, long side at most 640 (even sizes) */
export function humanWorkingSize(width: number, height: number, longSide = 640): { width: number; height: number } {
  const scale = Math.min(1, longSide / Math.max(width, height));
  const even = (v: number) => Math.max(2, Math.round((v * scale) / 2) * 2);
  return { width: even(width), height: even(height) };
}

/**
 * ISNet's input for `human`: 768x768, not the 1024 `original` uses. The selfie gate keeps only
 * people, so what matters is ISNet's edges, which hold at 768 (portrait-pan, all frames: 1024
 * IoU 0.981 / MAD 2.6 at 76 ms a frame; 768 0.979 / 3.3 at 42 ms; 512 0.968 / 9.5 at 27 ms).
 */
export const HUMAN_ISNET_SIZE = { width: 768, height: 768 };

/** keyframe policy: ISNet reruns when the two models' agreement drops this much, or after maxGap */
const AGREEMENT_DROP = 0.04;
const MAX_KEYFRAME_GAP_SECONDS = 2;
/** person pixels of the selfie mask reach this far (fraction of the long side) to keep ISNet's edges */
const GATE_RADIUS_FRACTION = 1 / 40;

/**
 * `human`: ISNet's sharp edges restricted to people. The selfie model runs on every frame (a few
 * ms); ISNet runs on keyframes only and its matte is moved with the subject in between. The
 * selfie mask, dilated, gates the ISNet matte (ISNet segments any salient object, the selfie model
 * only people), and tells when the moved matte no longer fits the person: then a new keyframe.
 */
export class HumanSession implements SegmentationSession {
  readonly notes: string[] = [];
  /** how many frames ran ISNet (for benchmarks) */
  keyframes = 0;
  private readonly propagator = new KeyframePropagator(2);
  private framesSinceKeyframe = 0;
  private keyframeAgreement = 0;
  private readonly maxGap: number;

  constructor(
    private readonly isnet: IsnetSegmenter,
    private readonly selfie: SelfieSegmenter,
    readonly inputWidth: number,
    readonly inputHeight: number,
    fps: number,
  ) {
    this.maxGap = Math.max(1, Math.round(MAX_KEYFRAME_GAP_SECONDS * (fps > 0 ? fps : 25)));
  }

  get matteSize(): { width: number; height: number } {
    return { width: this.inputWidth, height: this.inputHeight };
  }

  async segment(frame: RgbFrame): Promise<Matte> {
    const w = this.inputWidth;
    const h = this.inputHeight;
    const selfieRgb = resizeRgb(frame.data, w, h, this.selfie.width, this.selfie.height);
    const person = await this.selfie.probabilities(selfieRgb);
    const gate = this.personGate(person);

    let matte: Float32Array | undefined;
    if (this.propagator.hasKeyframe && this.framesSinceKeyframe + 1 < this.maxGap) {
      const moved = this.propagator.propagate(frame.data, w, h);
      if (agreement(this.atSelfieSize(moved), person) >= this.keyframeAgreement - AGREEMENT_DROP) {
        matte = moved;
        this.framesSinceKeyframe++;
      }
    }
    if (!matte) {
      const isnetRgb = resizeRgb(frame.data, w, h, this.isnet.width, this.isnet.height);
      const isnetMatte = await this.isnet.probabilities(isnetRgb);
      matte = resizePlane({ width: this.isnet.width, height: this.isnet.height, data: isnetMatte }, w, h);
      this.propagator.setKeyframe(frame.data, w, h, matte, w, h);
      this.keyframeAgreement = agreement(this.atSelfieSize(matte), person);
      this.framesSinceKeyframe = 0;
      this.keyframes++;
    }
    const gated = new Float32Array(matte.length);
    const gateFull = resizePlane({ width: this.selfie.width, height: this.selfie.height, data: gate }, w, h);
    for (let i = 0; i < gated.length; i++) gated[i] = matte[i] * Math.min(1, gateFull[i]);
    return { width: w, height: h, data: toAlphaBytes(gated) };
  }

  private atSelfieSize(plane: Float32Array): Float32Array {
    return resizePlane({ width: this.inputWidth, height: this.inputHeight, data: plane }, this.selfie.width, this.selfie.height);
  }

  /** 1 wherever a person pixel is within the gate radius, ramping to 0 beyond (selfie size) */
  private personGate(person: Float32Array): Float32Array {
    const { width, height } = this.selfie;
    const radius = Math.max(1, Math.round(Math.max(width, height) * GATE_RADIUS_FRACTION));
    const binary = new Float32Array(person.length);
    for (let i = 0; i < person.length; i++) binary[i] = person[i] >= 0.5 ? 1 : 0;
    const density = boxMean(binary, width, height, radius);
    // any person pixel in the window opens the gate; a few stray ones only partly
    const full = 4 / ((2 * radius + 1) * (2 * radius + 1));
    for (let i = 0; i < density.length; i++) density[i] = Math.min(1, density[i] / full);
    return density;
  }

  async close(): Promise<void> {}
}

/** IoU of two probability maps binarised at 0.5 */
export function agreement(a: Float32Array, b: Float32Array): number {
  let intersection = 0;
  let union = 0;
  for (let i = 0; i < a.length; i++) {
    const p = a[i] >= 0.5;
    const q = b[i] >= 0.5;
    if (p && q) intersection++;
    if (p || q) union++;
  }
  return union === 0 ? 1 : intersection / union;
}

export class HumanModel implements SegmentationModel {
  readonly name = 'human' as const;

  constructor(
    private readonly isnet: (size: { width: number; height: number }) => Promise<IsnetSegmenter>,
    private readonly selfie: (size: { width: number; height: number }) => Promise<SelfieSegmenter>,
  ) {}

  async createSession(options: SessionOptions): Promise<SegmentationSession> {
    const working = humanWorkingSize(options.width, options.height);
    const [isnet, selfie] = await Promise.all([this.isnet(HUMAN_ISNET_SIZE), this.selfie(selfieInputSizeFor(options.width, options.height))]);
    return new HumanSession(isnet, selfie, working.width, working.height, options.fps);
  }
}
