/**
 * One chunk of a long job (EngineRequest.segment): the plan is cut to the chunk's frames, and the
 * session is warmed on the frames just before them (the pre-roll), whose mattes are thrown away. The
 * recurrent state of the video-matting model and the motion smoothing then enter the chunk as they
 * would have in one run over the whole video, so the seam does not show.
 *
 * Frame numbers come from seconds with the probed frame rate: every chunk of a job rounds the same
 * boundaries the same way, so neighbouring chunks meet without a gap or an overlap.
 */
import { ffmpegPath } from '../media/binaries';
import { MediaProcess } from '../media/process';
import { buildDecodeArgs, FrameWindow, SourceSpec } from '../pipeline/ffmpeg-args';
import { FrameReader } from '../pipeline/frame-reader';
import { FramesInFlight } from '../pipeline/frames-in-flight';
import { unlessAborted } from '../pipeline/abort';
import { JobPlan } from '../pipeline/plan';
import { EngineError, HandOver, OutputFormat, RgbFrame, SegmentationModel, SegmentationSession, SegmentRange, SessionOptions } from '../types';

/** The frames a segment covers, and those of its pre-roll. */
export function segmentFrames(segment: SegmentRange, fps: number): { window: FrameWindow; preroll: FrameWindow } {
  if (!(segment.startSeconds >= 0) || !(segment.prerollSeconds >= 0)) throw new EngineError('input_invalid', 'a segment starts at or after 0 s, with a pre-roll of 0 s or more');
  const start = Math.round(segment.startSeconds * fps);
  const end = segment.endSeconds === undefined ? undefined : Math.round(segment.endSeconds * fps);
  if (end !== undefined && end <= start) throw new EngineError('input_invalid', `segment ${segment.startSeconds}-${segment.endSeconds} s holds no frame`);
  return { window: { start, end }, preroll: { start: Math.max(0, start - Math.round(segment.prerollSeconds * fps)), end: start } };
}

/** The plan of a segment: its frames only, no audio (the join takes it from the source once). */
export function planSegment(plan: JobPlan, segment: SegmentRange): JobPlan {
  const { window } = segmentFrames(segment, plan.source.fps);
  const framesExpected = Math.max(1, (window.end ?? plan.framesExpected) - window.start);
  return { ...plan, source: { ...plan.source, frames: window }, keepAudio: false, framesExpected };
}

/** Feeds the pre-roll's frames to the session and drops their mattes. */
export async function warmUpSession(session: SegmentationSession, source: SourceSpec, segment: SegmentRange, signal?: AbortSignal): Promise<number> {
  const { preroll } = segmentFrames(segment, source.fps);
  if (preroll.end === preroll.start) return 0;
  return feedFrames(session, { ...source, frames: preroll }, (frame) => session.segment(frame), signal);
}

/**
 * A surveying session (SegmentationSession.surveyFrame) is fed, before any matte is made, every
 * frame it will segment: a chunk's pre-roll and frames, or the whole source. A chunk decides from
 * its own frames, so the job module does not split a job that surveys (decidesFromWholeClip in
 * modules/jobs/domain/pro-prompt.ts).
 */
export async function surveySession(session: SegmentationSession, source: SourceSpec, segment: SegmentRange | undefined, signal?: AbortSignal): Promise<void> {
  if (!session.surveyFrame) return;
  const frames = segment ? (({ window, preroll }) => ({ start: preroll.start, end: window.end }))(segmentFrames(segment, source.fps)) : source.frames;
  await feedFrames(session, { ...source, frames }, (frame) => session.surveyFrame!(frame), signal);
  session.finishSurvey?.();
}

/**
 * Whether a later chunk of a long job keeps its model, decided as one run over the whole video
 * decides it: from the video's first frames, not the chunk's own (a talking head who steps out of
 * the frame at a chunk's start is still a people video). A session of a model that may hand videos
 * over (`light`, `human`) is fed the video from its first frame until it keeps the video or hands
 * it over: where someone is in sight that is the first frames in flight. Not needed where the
 * chunk's pre-roll starts at the video's start, or for a model that never hands over.
 */
export async function decideAtVideoStart(model: SegmentationModel, options: SessionOptions, source: SourceSpec, segment: SegmentRange | undefined, signal?: AbortSignal): Promise<{ keepVideo?: boolean } | HandOver> {
  if (!model.mayHandOver || !segment) return {};
  const { window, preroll } = segmentFrames(segment, source.fps);
  if (preroll.start === 0) return {};
  const session = await unlessAborted(model.createSession(options), signal, (opened) => void opened.close().catch(() => undefined));
  try {
    await feedFrames(session, { ...source, frames: { start: 0, end: window.end } }, (frame) => session.segment(frame), signal, () => session.keepsVideo === true);
    return session.keepsVideo ? { keepVideo: true } : (session.handOverAtEnd?.() ?? {});
  } catch (error) {
    if (error instanceof HandOver && !signal?.aborted) return error;
    throw error;
  } finally {
    await session.close();
  }
}

/** every frame of `source` (or up to when `done` holds), to `feed` in order, up to the session's framesInFlight at once */
async function feedFrames(session: SegmentationSession, source: SourceSpec, feed: (frame: RgbFrame) => Promise<unknown>, signal?: AbortSignal, done?: () => boolean): Promise<number> {
  const input = { width: session.inputWidth, height: session.inputHeight };
  const decoder = new MediaProcess(ffmpegPath(), buildDecodeArgs(source, input), { readStdout: true, signal });
  const reader = new FrameReader(decoder.stdout, input.width * input.height * 3, 3);
  let stoppedEarly = false;
  const read = async () => {
    if (signal?.aborted) throw new EngineError('canceled', 'processing was canceled');
    stoppedEarly = !!done?.();
    return stoppedEarly ? undefined : reader.next();
  };
  try {
    const frames = await new FramesInFlight(session, feed).drain(read);
    if (stoppedEarly) decoder.kill();
    else await decoder.exited;
    return frames;
  } catch (error) {
    decoder.kill();
    if (signal?.aborted) throw new EngineError('canceled', 'processing was canceled');
    if (error instanceof EngineError || error instanceof HandOver) throw error;
    throw new EngineError('input_invalid', `decoding frames ahead of the matting failed: ${(error as Error).message}`);
  }
}

/**
 * The format a chunk is written in. webm, mp4 and mov chunks are joined by stream copy; GIF, WebP
 * and PNG frames cannot be, so their chunks are ProRes 4444 (alpha kept, visually lossless) and the
 * join encodes the whole clip once: one GIF palette, one animation, one numbering of the frames.
 */
export function segmentFormatFor(format: OutputFormat): OutputFormat {
  return format === 'webm' || format === 'mp4' || format === 'mov' ? format : 'mov';
}
