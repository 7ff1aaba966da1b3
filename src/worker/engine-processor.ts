import { mkdtemp, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { DEFAULT_MEDIA_LIMITS, MediaLimits } from '../engine/media/limits';
import { OUTPUT_EXTENSIONS } from '../contract/job-settings';
import { EngineError, SegmentRange } from '../engine/types';
import { EnginePool, engineRequestOf } from '../common/worker-protocol/engine-request';
import { RemoteOutput, RemoteTaskInput } from '../common/worker-protocol/runpod-protocol';
import { JobFailure, JobProcessor, ProcessContext } from './job-queue';
import { downloadToFile, uploadFile } from './transfers';

export interface EngineProcessorOptions {
  /** parent of each job's temporary directory */
  workDir: string;
  maxInputBytes: number;
  transferTimeoutMs: number;
}


/**
 * One job on this machine: the input (and background image) fetched from their signed URLs into a
 * temporary directory, the engine run in the pool's child processes, the output PUT to its signed
 * URL. The directory is removed whatever happens.
 */
export function engineProcessor(pool: EnginePool, options: EngineProcessorOptions): JobProcessor {
  return async (input: RemoteTaskInput, { signal, onProgress }: ProcessContext): Promise<RemoteOutput> => {
    const dir = await mkdtemp(path.join(options.workDir, 'backdrop-worker-'));
    try {
      const inputPath = path.join(dir, 'input');
      await fetchInput(input.input_url, inputPath, 'input video', options, signal);
      const backgroundPath = input.background_image_url ? path.join(dir, 'background') : null;
      if (input.background_image_url && backgroundPath) await fetchInput(input.background_image_url, backgroundPath, 'background image', options, signal);
      const outputPath = path.join(dir, `output.${OUTPUT_EXTENSIONS[input.settings.outputFormat] ?? 'bin'}`);
      // The engine request is built exactly as the API's local gateway builds it; keys are this run's local paths.
      const task = { jobId: input.job_id, inputKey: inputPath, outputKey: outputPath, backgroundImageKey: backgroundPath, settings: input.settings, maxDurationSeconds: input.max_duration_seconds, mediaLimits: mediaLimitsOf(input), segment: segmentOf(input) };
      const result = await pool.run(
        engineRequestOf(task, inputPath, outputPath, backgroundPath),
        (progress) => onProgress(progress.framesTotal > 0 ? (100 * progress.framesDone) / progress.framesTotal : 0),
        signal,
      );
      const outputBytes = await uploadFile(input.output_upload_url, outputPath, { timeoutMs: options.transferTimeoutMs, signal }).catch((error: Error) => {
        throw new JobFailure(signal.aborted ? 'canceled' : 'output_failed', `The output could not be uploaded: ${error.message}`);
      });
      return {
        duration_seconds: result.durationSeconds,
        frames: result.frames,
        notes: result.notes,
        width: result.width,
        height: result.height,
        model_used: result.modelUsed,
        output_bytes: outputBytes,
      };
    } catch (error) {
      if (error instanceof EngineError) throw new JobFailure(error.code, error.message);
      throw error;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
}

function segmentOf(input: RemoteTaskInput): SegmentRange | undefined {
  const segment = input.segment;
  return segment && { startSeconds: segment.start_seconds, endSeconds: segment.end_seconds, prerollSeconds: segment.preroll_seconds };
}

function mediaLimitsOf(input: RemoteTaskInput): MediaLimits | undefined {
  const limits = input.media_limits;
  if (!limits) return undefined;
  return {
    maxVideoWidth: limits.max_video_width,
    maxVideoHeight: limits.max_video_height,
    maxVideoPixels: limits.max_video_pixels,
    maxFrameRate: limits.max_video_fps ?? DEFAULT_MEDIA_LIMITS.maxFrameRate,
    maxImagePixels: limits.max_image_pixels,
  };
}

async function fetchInput(url: string, target: string, what: string, options: EngineProcessorOptions, signal: AbortSignal): Promise<void> {
  await downloadToFile(url, target, { maxBytes: options.maxInputBytes, timeoutMs: options.transferTimeoutMs, signal }).catch((error: Error) => {
    throw new JobFailure(signal.aborted ? 'canceled' : 'worker_failed', `The ${what} could not be fetched: ${error.message}`);
  });
}
