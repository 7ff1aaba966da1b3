/**
 * Deterministic test doubles for SegmentationModel, so the pipeline's tests need no real model.
 * - `ellipse`: an opaque ellipse that moves right by `step` matte pixels per frame.
 * - `full`: every pixel opaque (the foreground is the whole frame; for placement tests).
 * - `bright`: alpha 255 where the frame is bright (luma > 128): the matte follows the picture's
 *   content, so a matte landing on the wrong frame shows up as a misplaced alpha edge.
 * - `luma`: alpha = the frame's luma, soft wherever the picture is gray (a white subject on black,
 *   feathered: every gray pixel is a = luma / 255 of white over black).
 */
import { HandOver, Matte, ModelName, RgbFrame, SegmentationModel, SegmentationSession, SessionOptions } from '../../../src/engine/types';

export interface FakeModelOptions {
  kind: 'ellipse' | 'full' | 'bright' | 'luma';
  /** the RGB size the session asks for (default 160x90) */
  input?: { width: number; height: number };
  /** for `ellipse`: the matte size (default: the input size) */
  matte?: { width: number; height: number };
  step?: number;
  name?: ModelName;
  /** wait this long in every segment() call (to have something to cancel) */
  delayMs?: number;
  /** block the event loop this long in every segment() call (a child that cannot hear a cancel) */
  blockMs?: number;
  /** a session takes this long to open (a model's threads loading it) */
  openMs?: number;
  /** called as a session starts opening */
  onOpening?: () => void;
  /**
   * the session takes this many frames before the first matte is awaited; each of a group of that
   * many waits less than the one before, so their calls finish last-frame-first
   */
  framesInFlight?: number;
  /**
   * the session hands the video to `model` (HandOver): on segmenting frame `atFrame`, or at the end
   * where that frame never comes; with `keptByBright`, not once it has segmented a bright frame
   * (mean > 128: its "person"), nor when its options say to keep the video
   */
  handsOver?: { model: ModelName; atFrame: number; keptByBright?: boolean };
}

export interface FakeModel extends SegmentationModel {
  sessions: FakeSession[];
}

export interface FakeSession extends SegmentationSession {
  options: SessionOptions;
  framesSeen: number[];
  keepsVideo?: boolean;
  /** the most segment() calls that were running at once */
  mostInFlight: number;
  closed: boolean;
}

export function createFakeModel(options: FakeModelOptions): FakeModel {
  const sessions: FakeSession[] = [];
  return {
    name: options.name ?? 'light',
    mayHandOver: !!options.handsOver,
    sessions,
    async createSession(sessionOptions: SessionOptions): Promise<SegmentationSession> {
      options.onOpening?.();
      if (options.openMs) await new Promise((resolve) => setTimeout(resolve, options.openMs));
      const input = options.input ?? { width: 160, height: 90 };
      const session: FakeSession = {
        options: sessionOptions,
        inputWidth: input.width,
        inputHeight: input.height,
        notes: [],
        framesSeen: [],
        mostInFlight: 0,
        framesInFlight: options.framesInFlight,
        closed: false,
        keepsVideo: options.handsOver ? !!sessionOptions.keepVideo : undefined,
        async segment(frame: RgbFrame): Promise<Matte> {
          session.framesSeen.push(frame.index);
          if (options.handsOver?.keptByBright && meanOf(frame.data) > 128) session.keepsVideo = true;
          if (options.handsOver && !session.keepsVideo && frame.index >= options.handsOver.atFrame) throw handOver(options.handsOver.model);
          running += 1;
          session.mostInFlight = Math.max(session.mostInFlight, running);
          try {
            return await segmentFrame(frame);
          } finally {
            running -= 1;
          }
        },
        handOverAtEnd() {
          return options.handsOver && !session.keepsVideo && session.framesSeen.length > 0 && Math.max(...session.framesSeen) < options.handsOver.atFrame ? handOver(options.handsOver.model) : undefined;
        },
        async close() {
          session.closed = true;
        },
      };
      let running = 0;
      const segmentFrame = async (frame: RgbFrame): Promise<Matte> => {
        if (options.framesInFlight) await new Promise((resolve) => setTimeout(resolve, (options.framesInFlight! - (frame.index % options.framesInFlight!)) * 5));
        if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
        for (const until = Date.now() + (options.blockMs ?? 0); Date.now() < until; );
        if (frame.data.length !== frame.width * frame.height * 3) throw new Error('bad frame size');
        if (options.kind === 'bright' || options.kind === 'luma') return lumaMatte(frame, options.kind === 'bright');
        const size = options.matte ?? input;
        if (options.kind === 'full') return { ...size, data: new Uint8Array(size.width * size.height).fill(255) };
        return ellipseMatte(frame.index, size, options.step ?? 2);
      };
      sessions.push(session);
      return session;
    },
  };
}

function meanOf(data: Uint8Array): number {
  let sum = 0;
  for (const value of data) sum += value;
  return sum / data.length;
}

function handOver(model: ModelName): HandOver {
  return new HandOver(model, `the fake hands the video to ${model}`);
}

/** The ellipse of frame `index` in a picture of `size` (matte pixels, or scaled to the output). */
export function ellipseAt(index: number, size: { width: number; height: number }, step: number, scale = 1) {
  return {
    centerX: (size.width / 6 + index * step) * scale,
    centerY: (size.height / 2) * scale,
    radiusX: (size.width / 6) * scale,
    radiusY: (size.height / 3) * scale,
  };
}

export function ellipseMatte(index: number, size: { width: number; height: number }, step: number): Matte {
  const data = new Uint8Array(size.width * size.height);
  const { centerX, centerY, radiusX, radiusY } = ellipseAt(index, size, step);
  for (let y = 0; y < size.height; y++) {
    for (let x = 0; x < size.width; x++) {
      const inside = ((x + 0.5 - centerX) / radiusX) ** 2 + ((y + 0.5 - centerY) / radiusY) ** 2 <= 1;
      data[y * size.width + x] = inside ? 255 : 0;
    }
  }
  return { width: size.width, height: size.height, data };
}

function lumaMatte(frame: RgbFrame, binary: boolean): Matte {
  const data = new Uint8Array(frame.width * frame.height);
  for (let i = 0; i < data.length; i++) {
    const luma = 0.299 * frame.data[i * 3] + 0.587 * frame.data[i * 3 + 1] + 0.114 * frame.data[i * 3 + 2];
    data[i] = binary ? (luma > 128 ? 255 : 0) : Math.round(luma);
  }
  return { width: frame.width, height: frame.height, data };
}
