/**
 * runEngine: one request, start to finish. Probe, plan, load the model, stream the video through
 * the segmentation session into the format's encoder, then finish the format (GIF render and
 * disposal patch, PNG zip) and move the output into place. Partial output never sits at
 * `outputPath`: it is written beside it under a hidden temporary name and renamed at the end.
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
import { buildEncodeArgs, buildGifAnalysisArgs, buildGifRenderArgs, buildWebmEncodeArgs, CompositeSpec, webmPartsIn } from './pipeline/ffmpeg-args';
import { Size } from './pipeline/geometry';
import { JobPlan, planJob } from './pipeline/plan';
import { streamMattes } from './pipeline/stream-mattes';
import { planSegment, surveySession, warmUpSession } from './chunks/segment';
import { EngineError, EngineProgress, EngineRequest, EngineResult, ModelName, SegmentationModel, SegmentationSession } from './types';

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
  const model = await loadModel(request, deps);
  await decodes;
  throwIfAborted(signal);

  const session = await model.createSession({ width: video.width, height: video.height, fps: video.fps, textPrompt: request.textPrompt });
  const partialPath = partialOutputPath(request.outputPath);
  let scratch: string | undefined;
  try {
    await surveySession(session, plan.source, request.segment, signal);
    if (request.segment) await warmUpSession(session, plan.source, request.segment, signal);
    scratch = await mkdtemp(join(deps.workDir ?? tmpdir(), 'backdrop-engine-'));
    const reportFrame = (framesDone: number) =>
      onProgress?.({ framesDone, framesTotal: Math.max(plan.framesExpected, framesDone) });
    const frames = await encode(plan, session, { scratch, partialPath, reportFrame, signal, edgeColour: deps.edgeColour ?? 'estimated' });
    throwIfAborted(signal);
    await rename(partialPath, request.outputPath);
    onProgress?.({ framesDone: frames, framesTotal: frames });
    return {
      durationSeconds: frames / plan.source.fps,
      frames,
      width: plan.layout.canvas.width,
      height: plan.layout.canvas.height,
      outputFormat: request.outputFormat,
      modelUsed: model.name,
      notes: [...session.notes, ...plan.notes],
    };
  } catch (error) {
    await rm(partialPath, { force: true });
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
  const spec = (matte: Size): CompositeSpec => ({
    source: plan.source,
    matte,
    layout: plan.layout,
    background: plan.background,
    preset: plan.preset,
    keepAudio: plan.keepAudio,
    decontaminate,
  });
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
      const { frames } = await stream((matte) => buildWebmEncodeArgs(spec(matte), parts));
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

async function loadModel(request: EngineRequest, deps: EngineDeps): Promise<SegmentationModel> {
  try {
    return await deps.loadModel(request.model, { cacheDir: deps.cacheDir });
  } catch (error) {
    if (error instanceof EngineError) throw error;
    throw new EngineError('model_unavailable', `model ${request.model} could not be loaded: ${(error as Error).message}`);
  }
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new EngineError('canceled', 'processing was canceled');
}
