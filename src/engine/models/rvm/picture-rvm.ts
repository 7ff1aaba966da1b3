import { RgbFrame, SessionOptions } from '../../types';
import { evenSide } from '../../pipeline/geometry';
import { barsHold, PixelBox, pictureWithoutBarEdges } from '../image/picture-bars';
import { resizePlane, resizeRgb } from '../image/resample';
import { Box } from '../pro/boxes';
import { RvmOutput } from './rvm-matter';
import { RvmProfile, rvmInputSize } from './rvm-geometry';
import { combinedOutput, RvmSession } from './rvm-session';

/** what of an RVM session the people sessions use (main-people-session.ts) */
export type PeopleRvm = Pick<RvmSession, 'matte' | 'restart' | 'close' | 'inputWidth' | 'inputHeight' | 'matteSize'>;

/** how a video with bars is framed for RVM: the frames' size, and the picture's place in them */
export interface PictureFraming {
  /** the size the frames are decoded at: the whole frame, scaled so that the picture is RVM's input size */
  frame: { width: number; height: number };
  /** the picture between the bars in the frame's pixels, RVM's input size */
  picture: PixelBox;
  /** the picture's size in the video's own pixels (what RVM's geometry is chosen for) */
  pictureInVideo: { width: number; height: number };
}

/** the framing of a `width` x `height` video whose `picture` lies between bars, for an RVM profile */
export function pictureFraming(width: number, height: number, picture: Box, profile: RvmProfile): PictureFraming {
  const pictureInVideo = { width: width * (picture.x1 - picture.x0), height: height * (picture.y1 - picture.y0) };
  const rvm = rvmInputSize(pictureInVideo.width, pictureInVideo.height, profile.inputLongSide);
  const frame = { width: Math.max(rvm.width, evenSide((width * rvm.width) / pictureInVideo.width)), height: Math.max(rvm.height, evenSide((height * rvm.height) / pictureInVideo.height)) };
  const left = Math.min(frame.width - rvm.width, Math.round(picture.x0 * frame.width));
  const top = Math.min(frame.height - rvm.height, Math.round(picture.y0 * frame.height));
  return { frame, picture: { left, top, right: left + rvm.width, bottom: top + rvm.height }, pictureInVideo };
}

/**
 * Share of pixels the picture must gain from the framing over the whole frame's input for RVM to be
 * shown it alone: a few pixels more are rounding to even sides, not a gain
 */
const FRAMING_GAIN = 1.05;

/**
 * RVM for a people model's session on a video: shown the picture between the video's bars
 * (SessionOptions.picture, PictureRvm) where that gives RVM more of the picture's pixels than the
 * whole frame does at the profile's size, else the whole frame. `open` opens RVM's session for a
 * video (or a picture) of that size.
 */
export async function openPeopleRvmSession(options: SessionOptions, profile: RvmProfile, open: (width: number, height: number) => Promise<RvmSession>): Promise<PeopleRvm> {
  const { width, height, picture } = options;
  const wholeFrame = rvmInputSize(width, height, profile.inputLongSide);
  const framing = picture && pictureFraming(width, height, picture, profile);
  if (!picture || !framing || !framingGains(framing, wholeFrame, picture)) return open(width, height);
  const inPicture = await open(framing.pictureInVideo.width, framing.pictureInVideo.height);
  return new PictureRvm(inPicture, framing, { ...wholeFrame, open: () => open(width, height) });
}

/** whether RVM sees more of the picture framed than in the whole frame's input */
function framingGains({ picture }: PictureFraming, wholeFrame: { width: number; height: number }, box: Box): boolean {
  const framed = (picture.right - picture.left) * (picture.bottom - picture.top);
  const inWholeFrame = wholeFrame.width * (box.x1 - box.x0) * wholeFrame.height * (box.y1 - box.y0);
  return framed > FRAMING_GAIN * inWholeFrame;
}

/** RVM over the whole frame, opened when the bars give way */
export interface WholeFrameRvm {
  width: number;
  height: number;
  open: () => Promise<RvmSession>;
}

/**
 * RVM on the picture between a video's letterbox or pillarbox bars (SessionOptions.picture), so
 * that RVM's pixels go to the picture and not to the bars: a phone's upright video in a landscape
 * frame, a cinema-wide film. The frames come at the framing's size; RVM sees the picture, and the
 * matte is zero on the bars. Where a frame's bars are no longer bars (a video that goes on without
 * them), RVM mattes the whole frame from then on, at the video's own geometry, on a fresh state.
 */
export class PictureRvm implements PeopleRvm {
  private whole: { session: Promise<RvmSession>; width: number; height: number } | undefined;

  constructor(
    private readonly inPicture: RvmSession,
    private readonly framing: PictureFraming,
    private readonly wholeFrame: WholeFrameRvm,
  ) {
    const { picture } = framing;
    if (inPicture.inputWidth !== picture.right - picture.left || inPicture.inputHeight !== picture.bottom - picture.top) throw new Error('RVM was opened at a size other than the picture\'s');
  }

  get inputWidth(): number {
    return this.framing.frame.width;
  }

  get inputHeight(): number {
    return this.framing.frame.height;
  }

  get matteSize(): { width: number; height: number } {
    return this.framing.frame;
  }

  /** whether the bars gave way, and RVM now sees the whole frame */
  get seesWholeFrame(): boolean {
    return this.whole !== undefined;
  }

  matte(frame: RgbFrame): Promise<RvmOutput> {
    const { frame: size, picture } = this.framing;
    if (!this.whole && barsHold(frame.data, size.width, size.height, picture)) {
      const width = picture.right - picture.left;
      const height = picture.bottom - picture.top;
      const matted = this.inPicture.matte({ ...frame, width, height, data: cropRgb(frame.data, size.width, picture) });
      const inside = pictureWithoutBarEdges(frame.data, size.width, size.height, picture);
      return matted.then((output) => combinedOutput(pasteAlpha(output.alpha, size, picture, inside), () => undefined, output.afterCut));
    }
    const whole = (this.whole ??= { ...this.wholeFrame, session: this.wholeFrame.open() });
    const scaled = resizeRgb(frame.data, size.width, size.height, whole.width, whole.height);
    const data = Buffer.from(scaled.buffer, scaled.byteOffset, scaled.byteLength);
    // `then` callbacks run in the order they were registered, so frames reach the session in order
    const matted = whole.session.then((session) => session.matte({ ...frame, width: whole.width, height: whole.height, data }));
    return matted.then((output) => combinedOutput(resizePlane({ width: whole.width, height: whole.height, data: output.alpha }, size.width, size.height), () => undefined, output.afterCut));
  }

  restart(): void {
    this.inPicture.restart();
    void this.whole?.session.then((session) => session.restart());
  }

  async close(): Promise<void> {
    await this.inPicture.close();
    if (this.whole) await (await this.whole.session).close();
  }
}

/** the `box` of a packed RGB24 frame `width` pixels wide, as a frame of its own */
function cropRgb(rgb: Buffer, width: number, box: PixelBox): Buffer {
  const rowBytes = (box.right - box.left) * 3;
  const out = Buffer.allocUnsafe(rowBytes * (box.bottom - box.top));
  for (let y = box.top; y < box.bottom; y++) rgb.copy(out, (y - box.top) * rowBytes, (y * width + box.left) * 3, (y * width + box.left) * 3 + rowBytes);
  return out;
}

/** an alpha plane of the box's size placed at the box in a plane of `size`, its `inside` part only, zero elsewhere */
function pasteAlpha(alpha: Float32Array, size: { width: number; height: number }, box: PixelBox, inside: PixelBox): Float32Array {
  const out = new Float32Array(size.width * size.height);
  const rowLength = box.right - box.left;
  for (let y = inside.top; y < inside.bottom; y++) {
    const row = (y - box.top) * rowLength;
    out.set(alpha.subarray(row + inside.left - box.left, row + inside.right - box.left), y * size.width + inside.left);
  }
  return out;
}
