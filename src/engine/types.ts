import type { MediaLimits } from './media/limits';

/**
 * The engine's public vocabulary. The engine is a plain library (no Nest): the service hands it a
 * local input file and a request, it writes the output file and reports progress.
 */

export type ModelName = 'light' | 'human' | 'original' | 'pro';
export const MODEL_NAMES: readonly ModelName[] = ['light', 'human', 'original', 'pro'];

export type OutputFormat = 'webm' | 'mov' | 'mp4' | 'gif' | 'webp' | 'png_sequence';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['webm', 'mov', 'mp4', 'gif', 'webp', 'png_sequence'];

/** Formats whose output carries an alpha channel. */
export const ALPHA_FORMATS: readonly OutputFormat[] = ['webm', 'mov', 'gif', 'webp', 'png_sequence'];

export type Rgb = readonly [number, number, number]; // 0..255 each

export type EngineBackground =
  | { type: 'transparent' }
  | { type: 'color'; rgb: Rgb }
  /** a local image file, already fetched by the caller (through the SSRF-guarded client) */
  | { type: 'image'; imagePath: string };

export type Anchor =
  | 'center'
  | 'top-left'
  | 'top-center'
  | 'top-right'
  | 'center-left'
  | 'center-right'
  | 'bottom-left'
  | 'bottom-center'
  | 'bottom-right';

export interface Composition {
  /** absent: the video's own size (the foreground then scaled and placed within it) */
  canvas?: { width: number; height: number };
  foreground: { anchor: Anchor; scale: number; offset: { x: number; y: number } };
}

export interface EngineRequest {
  inputPath: string;
  /** file to write; for png_sequence, a .zip */
  outputPath: string;
  model: ModelName;
  textPrompt?: string;
  outputFormat: OutputFormat;
  background: EngineBackground;
  composition?: Composition;
  /** seconds: process only the first N seconds */
  previewDuration?: number;
  /** seconds; longer input fails with input_too_long (default 600) */
  maxDurationSeconds?: number;
  /** frame and image size limits (default DEFAULT_MEDIA_LIMITS) */
  limits?: MediaLimits;
  /** process only this time range of the input: one chunk of a long job (chunks/segment.ts) */
  segment?: SegmentRange;
}

/**
 * A chunk of a long job: the frames from round(startSeconds * fps) up to round(endSeconds * fps)
 * (to the end when endSeconds is absent), after `prerollSeconds` of earlier frames that only warm
 * the model's temporal state and are discarded. A segment's output has no audio: the join adds it.
 */
export interface SegmentRange {
  startSeconds: number;
  endSeconds?: number;
  prerollSeconds: number;
}

export interface EngineProgress {
  framesDone: number;
  framesTotal: number;
}

export interface EngineResult {
  durationSeconds: number;
  frames: number;
  width: number;
  height: number;
  outputFormat: OutputFormat;
  /** model actually run (e.g. `pro` falls back to `original` until it lands) */
  modelUsed: ModelName;
  /** human-readable notes for the job's details */
  notes: string[];
}

export type EngineErrorCode =
  | 'input_invalid'
  | 'input_too_long'
  | 'output_failed'
  | 'model_unavailable'
  /** the caller aborted the run (AbortSignal); partial output has been removed */
  | 'canceled';

export class EngineError extends Error {
  constructor(
    readonly code: EngineErrorCode,
    message: string,
  ) {
    super(withoutFilePaths(message));
    this.name = 'EngineError';
  }
}

/**
 * Absolute file paths in `message` as `<file>`. An engine error becomes the job's `error`, which
 * its client reads, and ffmpeg's and Node's words name the files they failed on: the server's
 * storage and scratch directories ("decoding failed: ... /srv/data/storage/uploads/vid_...: No
 * such file or directory").
 */
export function withoutFilePaths(message: string): string {
  return message.replace(/(^|[\s'"(=])(?:file:)?\/[^\s:'"|,]+/g, '$1<file>');
}

/**
 * A session's word that its model should not matte this video and `model` should (`light` and
 * `human`, which keep people only, on a video where they see no one): the engine starts the video
 * again with `model`, and `note` goes into the job's notes. A session rejects `segment` with it, or
 * returns it from `handOverAtEnd` where the video ended before it could tell.
 */
export class HandOver extends Error {
  constructor(
    readonly model: ModelName,
    readonly note: string,
  ) {
    super(note);
    this.name = 'HandOver';
  }
}

export interface VideoInfo {
  durationSeconds: number;
  fps: number;
  /** display size (after rotation) */
  width: number;
  height: number;
  /** rotation in degrees from the stream's display matrix / rotate tag */
  rotation: number;
  frameCount: number;
  hasAudio: boolean;
  hasAlpha: boolean;
  videoCodec: string;
  formatName: string;
}

/** One decoded frame, packed RGB24, row-major, no padding. */
export interface RgbFrame {
  index: number;
  width: number;
  height: number;
  data: Buffer;
}

/** Alpha matte 0..255, width*height bytes, at any resolution: the pipeline scales it to the frame. */
export interface Matte {
  width: number;
  height: number;
  data: Uint8Array;
  /**
   * the subject's own colour, packed RGB24 at the matte's size, from sessions that predict it
   * (`predictsForeground`): over colour and image backgrounds it replaces the source's pixels in
   * the matte's soft edge, where they still carry the old background (for other sessions the
   * pipeline estimates it from the frame and the matte)
   */
  foreground?: Uint8Array;
}

/** A per-video, stateful segmenter (it may keep temporal state between frames). */
export interface SegmentationSession {
  /** the RGB size this session wants to be fed (the pipeline's decoder scales to it) */
  readonly inputWidth: number;
  readonly inputHeight: number;
  /**
   * the size of every matte `segment` returns, when the session knows it up front: the pipeline
   * then starts the encoder while the first frame is still being segmented
   */
  readonly matteSize?: { width: number; height: number };
  /** notes for the job's details (fallbacks, unknown prompt words...) */
  readonly notes: string[];
  /** every matte carries `foreground` */
  readonly predictsForeground?: boolean;
  /**
   * a session that decides from the whole clip first (pro's prompt attributes): the engine feeds
   * it every frame `segment` will see, in order (up to `framesInFlight` at once, as to `segment`),
   * then calls `finishSurvey` once every frame's survey has resolved, then segments
   */
  surveyFrame?(frame: RgbFrame): Promise<void>;
  finishSurvey?(): void;
  /**
   * how many frames the pipeline may pass to `segment` before the first one's matte comes back
   * (default 1): a session whose work runs in stages on several threads keeps them all busy
   */
  readonly framesInFlight?: number;
  /**
   * the caller gives each frame before it awaits the matte of the frame before, up to
   * `framesInFlight` ahead, and calls `framesEnded` when it has no more (FramesInFlight does both):
   * the session may then wait for the next frame to finish this one (original-model.ts: a frame
   * between two ISNet runs takes the next run's plane too)
   */
  feedsAhead?(): void;
  framesEnded?(): void;
  /** frames must be fed in order; the returned matte belongs to the frame passed; it may reject with a HandOver */
  segment(frame: RgbFrame): Promise<Matte>;
  /** once every frame is segmented: the model that should matte the video instead, if any (HandOver) */
  handOverAtEnd?(): HandOver | undefined;
  /** of a model that may hand videos over: true once this session has seen enough to keep the video */
  readonly keepsVideo?: boolean;
  close(): Promise<void>;
}

export interface SessionOptions {
  /** display size of the source video */
  width: number;
  height: number;
  fps: number;
  textPrompt?: string;
  /**
   * the picture between letterbox or pillarbox bars on the video's first frame, as a share of the
   * frame (0..1); absent where that frame has no bars (models/image/picture-bars.ts, pictureInBars)
   */
  picture?: { x0: number; y0: number; x1: number; y1: number };
  /**
   * the session mattes the video whatever it sees, never handing it over: a later chunk of a long
   * job, whose model kept the video by its first frames (chunks/segment.ts, decideAtVideoStart)
   */
  keepVideo?: boolean;
}

export interface SegmentationModel {
  readonly name: ModelName;
  /** its sessions may hand a video over (HandOver) and say when they keep it (`keepsVideo`) */
  readonly mayHandOver?: boolean;
  createSession(options: SessionOptions): Promise<SegmentationSession>;
}
