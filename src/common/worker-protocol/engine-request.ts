import type { JobSettings } from '../../contract/job-settings';
import type { MediaLimits } from '../../engine/media/limits';
import type { EngineProgress, EngineRequest, EngineResult, SegmentRange } from '../../engine/types';

/**
 * The one mapping from a job's settings to the engine's request, used by the in-process
 * LocalWorkerGateway and by the standalone worker server (src/worker), which both run the engine.
 */
export interface EngineTask {
  settings: JobSettings;
  maxDurationSeconds?: number;
  /** the input gate's frame and image size limits; absent: the engine's defaults */
  mediaLimits?: MediaLimits;
  /** one chunk of a long job: its time range and pre-roll; absent: the whole video */
  segment?: SegmentRange;
}

/** What the gateway needs of the engine's process pool. */
export interface EnginePool {
  run(request: EngineRequest, onProgress?: (progress: EngineProgress) => void, signal?: AbortSignal): Promise<EngineResult>;
  close(): Promise<void>;
}

function engineBackground(settings: JobSettings, backgroundImagePath: string | null): EngineRequest['background'] {
  const background = settings.background;
  if (background.type === 'color') return { type: 'color', rgb: background.color };
  if (background.type === 'image' && backgroundImagePath) return { type: 'image', imagePath: backgroundImagePath };
  return { type: 'transparent' };
}

/** Builds the engine's request from a job's settings (pure). */
export function engineRequestOf(task: EngineTask, inputPath: string, outputPath: string, backgroundImagePath: string | null): EngineRequest {
  const { settings } = task;
  return {
    inputPath,
    outputPath,
    model: settings.model,
    textPrompt: settings.textPrompt ?? undefined,
    outputFormat: settings.outputFormat,
    background: engineBackground(settings, backgroundImagePath),
    // without a canvas the foreground is placed on one of the video's size (it was dropped: the output was the video as it is)
    composition: settings.composition ?? undefined,
    previewDuration: settings.previewDuration ?? undefined,
    maxDurationSeconds: task.maxDurationSeconds,
    limits: task.mediaLimits,
    segment: task.segment,
  };
}
