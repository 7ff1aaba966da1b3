/**
 * runEngine: one request, start to finish. Probe, plan, load the model, stream the video through
 * the segmentation session into the format's encoder, then finish the format (GIF render and
 * disposal patch, PNG zip) and move the output into place. Partial output never sits at
 * `outputPath`: it is written beside it under a hidden temporary name and renamed at the end. A
 * session may hand the video to another model (HandOver: `light` and `human` seeing no one), and
 * the video is then started again with that one.
 */
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ffmpegPath } from './media/binaries';
import { admitImage, admitVideo } from './media/input-gate';
import { proveItDecodes } from './media/probe';
import { MediaProcess, runToCompletion } from './media/process';
import { setGifFileDisposal } from './output/gif-disposal';
import { partialOutputPath } from './output/partial-output';
import { finishWebm } from './output/webm-output';
import { zipFrames } from './output/zip-frames';
import {
  buildEncodeArgs,
  buildGifAnalysisArgs,
  buildGifRenderArgs,
  buildWebmAlphaArgs,
  buildWebmColourArgs,
  buildWebmEncodeArgs,
  CompositeSpec,
  encodesWebmApart,
  WebmParts,
  webmPartsIn,
} from './pipeline/ffmpeg-args';
import { Size } from './pipeline/geometry';
import { JobPlan, planJob } from './pipeline/plan';
import { streamMattes } from './pipeline/stream-mattes';
import { decideAtVideoStart, planSegment, surveySession, warmUpSession } from './chunks/segment';
import { throwIfAborted, unlessAborted } from './pipeline/abort';
import { EngineError, EngineProgress, EngineRequest, EngineResult, HandOver, ModelName, SegmentationModel, SegmentationSession, SessionOptions } from './types';
import { pictureInBars } from './models/image/picture-bars';

export interface EngineDeps {
  loadModel(name: ModelName, options: { cacheDir: string }): Promise<SegmentationModel>;
  cacheDir: string;
  /** parent of the run's scratch directory (PNG frames, GIF palette and mattes); default: the OS temp dir */
  workDir?: string;
  /**
   * the colour of the matte's soft edge over colour and image backgrounds: the subject's own,
   * estimated (the default; see models/image/foreground-colour.ts), or the source's pixels, which
   * still hold some of the old background there (kept to measure the difference)
   */
  edgeColour?: 'estimated' | 'source';
}

export type ProgressListener = (progress: EngineProgress) => void;

export async function runEngine(
  request: EngineRequest,
  deps: EngineDeps,
  onProgress?: ProgressListener,
  signal?: AbortSignal,
): Promise<EngineResult> {
  throwIfAborted(signal);
  // the input gate: sniffed, pinned, sized; nothing below opens a file the gate has not admitted
  const video = await admitVideo(request.inputPath, request.limits, signal);
  const image = request.background.type === 'image' ? await admitImage(request.background.imagePath, request.limits, signal) : undefined;
  const whole = planJob(request, video, image);
  const plan = request.segment ? planSegment(whole, request.segment) : whole;
  // undecodable input is refused before any model runs; the check overlaps the model's loading
  const decodes = proveItDecodes(request.inputPath, video, signal);
  decodes.catch(() => undefined); // awaited below, unless the model fails to load first
  const model = await unlessAborted(loadModel(request.model, deps), signal);
  const firstFrame = await decodes;
  const picture = pictureInBars(firstFrame.data, firstFrame.width, firstFrame.height);
  // frames done never go back when a video is handed to another model and started again
  let framesReported = 0;
  const reportFrame = (framesDone: number) => {
    framesReported = Math.max(framesReported, framesDone);
    onProgress?.({ framesDone: framesReported, framesTotal: Math.max(plan.framesExpected, framesReported) });
  };
  const context: MatteContext = { deps, video: { ...video, picture }, reportFrame, signal };
  const first = await matteWith(model, request, plan, context);
  const matted = first instanceof HandOver ? await handOver(first, request, plan, context) : first;
  await rename(matted.partialPath, request.outputPath).catch(async (error: unknown) => {
    await rm(matted.partialPath, { force: true });
    throw error;
  });
  onProgress?.({ framesDone: matted.frames, framesTotal: matted.frames });
  return {
    durationSeconds: matted.frames / plan.source.fps,
    frames: matted.frames,
    width: plan.layout.canvas.width,
    height: plan.layout.canvas.height,
    outputFormat: request.outputFormat,
    modelUsed: matted.model,
    notes: [...matted.notes, ...plan.notes],
  };
}

interface MatteContext {
  deps: EngineDeps;
  /** the video's display size, frame rate and picture between bars, for the session */
  video: Pick<SessionOptions, 'width' | 'height' | 'fps' | 'picture'>;
  reportFrame: (framesDone: number) => void;
  signal?: AbortSignal;
}

/** a video matted and encoded, not yet moved into place */
interface Matted {
  model: ModelName;
  partialPath: string;
  frames: number;
  notes: string[];
}

/** The video started again with the model a session handed it to (HandOver); that one may not hand it on. */
async function handOver(by: HandOver, request: EngineRequest, plan: JobPlan, context: MatteContext): Promise<Matted> {
  const next = await matteWith(await loadModel(by.model, context.deps), request, plan, context);
  if (next instanceof HandOver) throw new EngineError('model_unavailable', `model ${by.model} handed the video on to ${next.model}`);
  return { ...next, notes: [by.note, ...next.notes] };
}

/**
 * One model's session over the plan, written to a partial output of its own: the output, or the
 * session's HandOver (its partial output removed). Other failures remove it too.
 */
async function matteWith(model: SegmentationModel, request: EngineRequest, plan: JobPlan, context: MatteContext): Promise<Matted | HandOver> {
  const { deps, video, signal } = context;
  throwIfAborted(signal);
  const options = { width: video.width, height: video.height, fps: video.fps, picture: video.picture, textPrompt: request.textPrompt };
  const atVideoStart = await decideAtVideoStart(model, options, plan.source, request.segment, signal);
  if (atVideoStart instanceof HandOver) return atVideoStart;
  const session = await unlessAborted(model.createSession({ ...options, ...atVideoStart }), signal, (opened) => void opened.close().catch(() => undefined));
  const partialPath = partialOutputPath(request.outputPath);
  let scratch: string | undefined;
  try {
    await surveySession(session, plan.source, request.segment, signal);
    if (request.segment) await warmUpSession(session, plan.source, request.segment, signal);
    scratch = await mkdtemp(join(deps.workDir ?? tmpdir(), 'backdrop-engine-'));
    const frames = await encode(plan, session, { scratch, partialPath, reportFrame: context.reportFrame, signal, edgeColour: deps.edgeColour ?? 'estimated' });
    throwIfAborted(signal);
    const atEnd = session.handOverAtEnd?.();
    if (atEnd) {
      await rm(partialPath, { force: true });
      return atEnd;
    }
    return { model: model.name, partialPath, frames, notes: session.notes };
  } catch (error) {
    await rm(partialPath, { force: true });
    if (error instanceof HandOver && !signal?.aborted) return error;
    throw signal?.aborted ? new EngineError('canceled', 'processing was canceled') : error;
  } finally {
    await Promise.allSettled([session.close(), scratch && rm(scratch, { recursive: true, force: true })]);
  }
}

interface EncodeContext {
  scratch: string;
  partialPath: string;
  reportFrame: (framesDone: number) => void;
  signal?: AbortSignal;
  edgeColour: 'estimated' | 'source';
}

/** Streams the video into the format's encoder and finishes the format; returns the frame count. */
async function encode(plan: JobPlan, session: SegmentationSession, context: EncodeContext): Promise<number> {
  const { scratch, partialPath, signal } = context;
  // GIF is excluded: its render pass re-reads recorded mattes, and a 256-colour palette hides the edge
  const decontaminate = context.edgeColour === 'estimated' && plan.background.type !== 'transparent' && plan.preset.format !== 'gif';
  const composite: Omit<CompositeSpec, 'matte'> = {
    source: plan.source,
    layout: plan.layout,
    background: plan.background,
    preset: plan.preset,
    keepAudio: plan.keepAudio,
    decontaminate,
  };
  const spec = (matte: Size): CompositeSpec => ({ ...composite, matte });
  const startEncoder = (args: string[]) => new MediaProcess(ffmpegPath(), args, { extraInputPipes: decontaminate ? 2 : 1, signal });
  const stream = (encoderArgs: (matte: Size) => string[]) =>
    streamMattes({ source: plan.source, session, startEncoder: (matte) => startEncoder(encoderArgs(matte)), onFrame: context.reportFrame, signal, withForeground: decontaminate });

  switch (plan.preset.format) {
    case 'png_sequence': {
      const framesDir = join(scratch, 'frames');
      await mkdir(framesDir);
      const { frames } = await stream((matte) => buildEncodeArgs(spec(matte), join(framesDir, 'frame_%05d.png')));
      await zipFrames(framesDir, partialPath);
      return frames;
    }
    case 'gif': {
      const palettePath = join(scratch, 'palette.png');
      const mattesPath = join(scratch, 'mattes.mkv');
      const { frames, matte } = await stream((size) => buildGifAnalysisArgs(spec(size), palettePath, mattesPath));
      try {
        await runToCompletion(ffmpegPath(), buildGifRenderArgs(spec(matte), palettePath, mattesPath, partialPath), signal);
      } catch (error) {
        throw new EngineError('output_failed', `GIF rendering failed: ${(error as Error).message}`);
      }
      await setGifFileDisposal(partialPath);
      return frames;
    }
    case 'webm': {
      const parts = webmPartsIn(scratch);
      const frames = encodesWebmApart(composite)
        ? await encodeWebmApart(composite, parts, stream, signal)
        : (await stream((matte) => buildWebmEncodeArgs(spec(matte), parts))).frames;
      try {
        await finishWebm(parts, plan.keepAudio, partialPath, signal);
      } catch (error) {
        throw new EngineError('output_failed', `joining the webm's colour and alpha failed: ${(error as Error).message}`);
      }
      return frames;
    }
    default: {
      const { frames } = await stream((matte) => buildEncodeArgs(spec(matte), partialPath));
      return frames;
    }
  }
}

/**
 * webm's colour encoder started on the source alone, beside the stream of mattes into the alpha
 * encoder (encodesWebmApart); returns the frame count once both have finished.
 */
async function encodeWebmApart(
  composite: Omit<CompositeSpec, 'matte'>,
  parts: WebmParts,
  streamAlpha: (alphaArgs: (matte: Size) => string[]) => Promise<{ frames: number }>,
  signal?: AbortSignal,
): Promise<number> {
  const colour = new MediaProcess(ffmpegPath(), buildWebmColourArgs(composite, parts), { signal });
  // read at once, so that a colour encoder failing while the mattes stream is not an unhandled rejection
  const colourFailure = colour.exited.then(
    () => undefined,
    (error: Error) => error,
  );
  try {
    const { frames } = await streamAlpha((matte) => buildWebmAlphaArgs({ ...composite, matte }, parts));
    const failure = await colourFailure;
    if (failure) throw new EngineError('output_failed', `encoding failed: ${failure.message}`);
    return frames;
  } catch (error) {
    colour.kill();
    throw error;
  }
}

async function loadModel(name: ModelName, deps: EngineDeps): Promise<SegmentationModel> {
  try {
    return await deps.loadModel(name, { cacheDir: deps.cacheDir });
  } catch (error) {
    if (error instanceof EngineError) throw error;
    throw new EngineError('model_unavailable', `model ${name} could not be loaded: ${(error as Error).message}`);
  }
}

