import { Matte, RgbFrame, SegmentationSession } from '../../types';
import { RvmMatter, RvmOutput, RvmStream } from './rvm-matter';
import { SceneCutDetector } from './scene-cut';
import { resizeRgb, toAlphaBytes } from '../image/resample';
import { meanWithMirrored, mirrorRows, trimWithMirrored } from '../image/mirror';
import { GrainFilter } from '../image/sensor-noise';
import { BackgroundColours } from '../image/background-colours';

export interface RvmSessionOptions {
  /**
   * Also matte the left-right mirror image of each frame, on a recurrent state of its own, and
   * take the mean of the two (test-time augmentation): about twice the inference for a matte whose
   * errors on the two sides of an edge partly cancel. See people-rvm.ts.
   */
  mirrored?: boolean;
  /**
   * Instead, matte the mirror image with this smaller RVM (`light`'s) on a state of its own and
   * let it trim the matte where it firmly sees background (trimWithMirrored, SMALL_MIRROR_SHARE):
   * errors the two passes do not share, at a fraction of the pair's cost (human-model.ts). Taken
   * over `mirrored` when both are given.
   */
  smallMirror?: RvmMatter;
  /**
   * With `smallMirror`: also drop the blobs at the matte's edge where the small pass firmly sees
   * background and whose colours are the background's, not the subject's (background-colours.ts).
   */
  backgroundColours?: boolean;
}

/** the small mirror pass's share where it trims the matte (`smallMirror`; measured in human-model.ts) */
export const SMALL_MIRROR_SHARE = 0.4;

/** a smaller RVM's pass over the mirror images, on its own recurrent state */
interface SmallMirrorPass {
  matter: RvmMatter;
  stream: RvmStream;
}

/**
 * The output of two passes combined into `alpha`: its bytes and the foreground colour are made only
 * when read (the people sessions keep their chosen people's regions and make their own bytes;
 * `original` and `pro` read no colour), each once.
 */
export function combinedOutput(alpha: Float32Array, foreground: () => Float32Array | undefined, afterCut?: boolean): RvmOutput {
  let bytes: Uint8Array | undefined;
  let colour: Float32Array | undefined;
  return {
    alpha,
    afterCut,
    get alphaBytes(): Uint8Array {
      return (bytes ??= toAlphaBytes(alpha));
    },
    get foreground(): Float32Array | undefined {
      return (colour ??= foreground());
    },
  };
}

/**
 * Robust Video Matting over one video: the recurrent state goes from frame to frame and is reset
 * at hard cuts, where the memory of the last shot would only mislead the next.
 */
export class RvmSession implements SegmentationSession {
  get notes(): string[] {
    return [];
  }

  /**
   * RVM's foreground colour rides along with every matte, but the engine does not composite with
   * it: on a clip with an exact foreground (bench/matting/edge-colour.ts) it left more of the old
   * background in the soft edge than the source's own pixels did, and the engine's own estimate
   * (models/image/foreground-colour.ts) left less than either (README, the edge colour table).
   */
  readonly predictsForeground = false;
  /** scene cuts seen (the state was reset at each) */
  cuts = 0;
  /** the last frame's RVM output, alpha and foreground colour (for decontaminated compositing) */
  last: RvmOutput | undefined;
  private readonly stream: RvmStream;
  /** the mirrored frames' state, when `mirrored` */
  private readonly mirrorStream: RvmStream | undefined;
  /** the smaller RVM's pass over the mirror images, when `smallMirror` */
  private readonly smallMirror: SmallMirrorPass | undefined;
  private readonly cutDetector = new SceneCutDetector();
  private readonly grain = new GrainFilter();
  private readonly backgroundColours: BackgroundColours | undefined;
  /** the next frame's colours start afresh (set by `restart`, taken by that frame: the frames before it may still be finishing) */
  private coloursAfresh = false;

  constructor(
    private readonly matter: RvmMatter,
    options: RvmSessionOptions = {},
  ) {
    this.stream = matter.stream();
    this.mirrorStream = options.mirrored && !options.smallMirror ? matter.stream() : undefined;
    this.smallMirror = options.smallMirror && { matter: options.smallMirror, stream: options.smallMirror.stream() };
    this.backgroundColours = options.smallMirror && options.backgroundColours ? new BackgroundColours() : undefined;
  }

  get inputWidth(): number {
    return this.matter.width;
  }

  get inputHeight(): number {
    return this.matter.height;
  }

  /** whether the mirrored frame is matted beside each frame (RvmSessionOptions.mirrored) */
  get mirrored(): boolean {
    return this.mirrorStream !== undefined;
  }

  /** whether a smaller RVM's pass over the mirror images trims each matte (RvmSessionOptions.smallMirror) */
  get trimmedBySmallMirror(): boolean {
    return this.smallMirror !== undefined;
  }

  get matteSize(): { width: number; height: number } {
    return { width: this.matter.width, height: this.matter.height };
  }

  /** RVM's output for the next frame (calls in frame order; frames may be in flight together) */
  matte(frame: RgbFrame): Promise<RvmOutput> {
    if (!this.cutDetector.isCut(frame.data, frame.width, frame.height)) return this.matteOf(frame);
    this.restart();
    this.cuts++;
    return this.matteOf(frame).then((output) => Object.assign(output, { afterCut: true }));
  }

  private matteOf(frame: RgbFrame): Promise<RvmOutput> {
    const { width, height } = this.matter;
    const data = this.grain.apply(frame.data, width, height);
    const direct = this.stream.next(data);
    if (this.smallMirror) return this.trimmedMatte(data, direct, this.smallMirror);
    if (!this.mirrorStream) return direct;
    const mirrored = this.mirrorStream.next(mirrorRows(data, width, height, 3));
    return Promise.all([direct, mirrored]).then(([a, b]) =>
      // the colour averaged only when read (2-3 ms a frame at 640x360): `original` and `pro` read the alpha alone
      combinedOutput(meanWithMirrored(a.alpha, b.alpha, width, height, 1), () => a.foreground && b.foreground && meanWithMirrored(a.foreground, b.foreground, width, height, 3)),
    );
  }

  /** the frame's output, its alpha trimmed by the small pass over its mirror image (scaled to the frame's size) */
  private trimmedMatte(data: Uint8Array, direct: Promise<RvmOutput>, pass: SmallMirrorPass): Promise<RvmOutput> {
    const { width, height } = this.matter;
    const small = pass.matter;
    const mirrored = pass.stream.next(resizeRgb(data, width, height, small.width, small.height, undefined, true));
    const afresh = this.coloursAfresh;
    this.coloursAfresh = false;
    return Promise.all([direct, mirrored]).then(([own, other]) => {
      const colours = this.backgroundColours;
      const trimmedAt: number[] | undefined = colours && [];
      const alpha = trimWithMirrored(own.alpha, { width: small.width, height: small.height, data: other.alpha }, width, height, SMALL_MIRROR_SHARE, trimmedAt);
      if (colours && trimmedAt) {
        if (afresh) colours.restart();
        colours.drop(alpha, data, width, height, trimmedAt);
      }
      return combinedOutput(alpha, () => own.foreground);
    });
  }

  /** the next frame starts afresh, with no memory of the frames before (after a cut, or frames RVM did not see) */
  restart(): void {
    this.stream.reset();
    this.mirrorStream?.reset();
    this.smallMirror?.stream.reset();
    this.grain.restart();
    this.coloursAfresh = true;
  }

  async segment(frame: RgbFrame): Promise<Matte> {
    const last = (this.last = await this.matte(frame));
    // the colour as RGB24 bytes only when a pipeline asks for it (colour decontamination)
    let foregroundBytes: Uint8Array | undefined;
    return {
      width: this.inputWidth,
      height: this.inputHeight,
      data: last.alphaBytes,
      get foreground(): Uint8Array | undefined {
        return last.foreground && (foregroundBytes ??= toAlphaBytes(last.foreground));
      },
    };
  }

  async close(): Promise<void> {
    this.stream.close();
    this.mirrorStream?.close();
    this.smallMirror?.stream.close();
  }
}
