import { existsSync } from 'node:fs';
import { ObjectStorage } from '../../storage/ports/object-storage';
import { EngineError, EngineProgress, EngineRequest, EngineResult } from '../../../engine/types';
import { ffmpegPath, ffprobePath } from '../../../engine/media/binaries';
import { WorkerFailure, WorkerGateway, WorkerOutcome, WorkerTask } from '../ports/worker-gateway';
import { JobSettings } from '../../jobs/domain/job-settings';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

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
export function engineRequestOf(task: WorkerTask, inputPath: string, outputPath: string, backgroundImagePath: string | null): EngineRequest {
  const { settings } = task;
  return {
    inputPath,
    outputPath,
    model: settings.model,
    textPrompt: settings.textPrompt ?? undefined,
    outputFormat: settings.outputFormat,
    background: engineBackground(settings, backgroundImagePath),
    composition: settings.composition?.canvas
      ? { canvas: settings.composition.canvas, foreground: settings.composition.foreground }
      : undefined,
    previewDuration: settings.previewDuration ?? undefined,
    maxDurationSeconds: task.maxDurationSeconds,
    limits: task.mediaLimits,
  };
}

/** Runs the engine on this machine, in child processes of the pool, so the API stays responsive. */
export class LocalWorkerGateway extends WorkerGateway {
  private pool: EnginePool | null = null;

  constructor(
    private readonly storage: ObjectStorage,
    private readonly createPool: () => EnginePool,
  ) {
    super();
  }

  async process(task: WorkerTask, onProgress: (percent: number) => void, signal?: AbortSignal): Promise<WorkerOutcome> {
    this.pool ??= this.createPool();
    const pool = this.pool;
    const workDir = await mkdtemp(path.join(tmpdir(), 'backdrop-job-'));
    try {
      return await this.storage.withLocalFile(task.inputKey, (inputPath) =>
        this.withOptionalLocalFile(task.backgroundImageKey, async (backgroundPath) => {
          const outputPath = path.join(workDir, path.basename(task.outputKey));
          const result = await pool.run(
            engineRequestOf(task, inputPath, outputPath, backgroundPath),
            (progress) => onProgress(progress.framesTotal > 0 ? (100 * progress.framesDone) / progress.framesTotal : 0),
            signal,
          );
          await this.storage.putFile(task.outputKey, outputPath).catch((error: Error) => {
            throw new WorkerFailure('output_failed', `The output could not be stored: ${error.message}`);
          });
          return { durationSeconds: result.durationSeconds, frames: result.frames, notes: result.notes };
        }),
      );
    } catch (error) {
      if (error instanceof EngineError) throw new WorkerFailure(error.code, error.message);
      throw error;
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  }

  async check(): Promise<string> {
    const missing = [ffmpegPath(), ffprobePath()].find((binary) => !existsSync(binary));
    return missing ? `missing binary ${missing}` : 'ok';
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }

  private withOptionalLocalFile<T>(key: string | null, use: (path: string | null) => Promise<T>): Promise<T> {
    return key ? this.storage.withLocalFile(key, use) : use(null);
  }
}
